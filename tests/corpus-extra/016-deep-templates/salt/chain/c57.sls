include:
  - chain.c58
c57:
  test.nop: []
