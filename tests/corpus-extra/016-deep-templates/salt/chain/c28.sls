include:
  - chain.c29
c28:
  test.nop: []
