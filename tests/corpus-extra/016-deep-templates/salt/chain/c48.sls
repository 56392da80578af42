include:
  - chain.c49
c48:
  test.nop: []
