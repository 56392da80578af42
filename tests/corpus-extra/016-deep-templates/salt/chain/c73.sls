include:
  - chain.c74
c73:
  test.nop: []
