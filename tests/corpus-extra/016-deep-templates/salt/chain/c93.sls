include:
  - chain.c94
c93:
  test.nop: []
