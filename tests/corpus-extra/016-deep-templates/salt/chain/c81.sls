include:
  - chain.c82
c81:
  test.nop: []
