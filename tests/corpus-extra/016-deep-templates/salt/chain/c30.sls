include:
  - chain.c31
c30:
  test.nop: []
