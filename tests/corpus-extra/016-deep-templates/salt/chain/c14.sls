include:
  - chain.c15
c14:
  test.nop: []
