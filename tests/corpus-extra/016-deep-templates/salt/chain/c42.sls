include:
  - chain.c43
c42:
  test.nop: []
