include:
  - chain.c13
c12:
  test.nop: []
