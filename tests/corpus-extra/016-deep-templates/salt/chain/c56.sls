include:
  - chain.c57
c56:
  test.nop: []
