include:
  - chain.c8
c7:
  test.nop: []
