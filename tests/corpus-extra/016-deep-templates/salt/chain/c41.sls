include:
  - chain.c42
c41:
  test.nop: []
