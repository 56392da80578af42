include:
  - chain.c17
c16:
  test.nop: []
