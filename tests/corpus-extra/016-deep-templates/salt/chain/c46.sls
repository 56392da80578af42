include:
  - chain.c47
c46:
  test.nop: []
