include:
  - chain.c33
c32:
  test.nop: []
