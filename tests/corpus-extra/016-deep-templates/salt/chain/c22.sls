include:
  - chain.c23
c22:
  test.nop: []
