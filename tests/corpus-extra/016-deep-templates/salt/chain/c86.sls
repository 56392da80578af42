include:
  - chain.c87
c86:
  test.nop: []
