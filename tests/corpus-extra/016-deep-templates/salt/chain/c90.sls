include:
  - chain.c91
c90:
  test.nop: []
