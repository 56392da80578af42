include:
  - chain.c76
c75:
  test.nop: []
