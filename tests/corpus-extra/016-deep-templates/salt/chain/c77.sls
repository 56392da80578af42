include:
  - chain.c78
c77:
  test.nop: []
