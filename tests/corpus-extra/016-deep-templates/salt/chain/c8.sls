include:
  - chain.c9
c8:
  test.nop: []
