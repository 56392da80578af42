include:
  - chain.c92
c91:
  test.nop: []
