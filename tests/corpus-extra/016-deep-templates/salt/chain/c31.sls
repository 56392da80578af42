include:
  - chain.c32
c31:
  test.nop: []
