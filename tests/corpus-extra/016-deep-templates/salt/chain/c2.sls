include:
  - chain.c3
c2:
  test.nop: []
