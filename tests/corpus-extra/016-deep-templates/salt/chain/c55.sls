include:
  - chain.c56
c55:
  test.nop: []
