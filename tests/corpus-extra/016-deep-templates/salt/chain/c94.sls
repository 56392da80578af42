include:
  - chain.c95
c94:
  test.nop: []
