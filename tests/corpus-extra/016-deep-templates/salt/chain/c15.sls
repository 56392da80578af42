include:
  - chain.c16
c15:
  test.nop: []
