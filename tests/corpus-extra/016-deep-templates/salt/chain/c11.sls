include:
  - chain.c12
c11:
  test.nop: []
