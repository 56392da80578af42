include:
  - chain.c27
c26:
  test.nop: []
