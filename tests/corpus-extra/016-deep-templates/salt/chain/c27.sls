include:
  - chain.c28
c27:
  test.nop: []
