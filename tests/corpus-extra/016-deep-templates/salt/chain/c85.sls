include:
  - chain.c86
c85:
  test.nop: []
