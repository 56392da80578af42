include:
  - chain.c22
c21:
  test.nop: []
