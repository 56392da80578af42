include:
  - chain.c7
c6:
  test.nop: []
