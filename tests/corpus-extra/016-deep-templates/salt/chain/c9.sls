include:
  - chain.c10
c9:
  test.nop: []
