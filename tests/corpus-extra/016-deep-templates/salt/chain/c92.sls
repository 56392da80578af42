include:
  - chain.c93
c92:
  test.nop: []
