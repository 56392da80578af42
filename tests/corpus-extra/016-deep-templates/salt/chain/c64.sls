include:
  - chain.c65
c64:
  test.nop: []
