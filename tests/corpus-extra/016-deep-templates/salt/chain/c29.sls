include:
  - chain.c30
c29:
  test.nop: []
