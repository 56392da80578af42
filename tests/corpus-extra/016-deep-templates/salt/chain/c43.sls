include:
  - chain.c44
c43:
  test.nop: []
