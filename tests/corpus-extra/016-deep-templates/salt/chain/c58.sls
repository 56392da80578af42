include:
  - chain.c59
c58:
  test.nop: []
