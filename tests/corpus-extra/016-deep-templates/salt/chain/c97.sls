include:
  - chain.c98
c97:
  test.nop: []
