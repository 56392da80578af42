include:
  - chain.c6
c5:
  test.nop: []
