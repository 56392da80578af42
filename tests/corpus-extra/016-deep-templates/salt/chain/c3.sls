include:
  - chain.c4
c3:
  test.nop: []
