include:
  - chain.c72
c71:
  test.nop: []
