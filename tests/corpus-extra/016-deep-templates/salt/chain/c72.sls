include:
  - chain.c73
c72:
  test.nop: []
