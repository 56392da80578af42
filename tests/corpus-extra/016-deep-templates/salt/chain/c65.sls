include:
  - chain.c66
c65:
  test.nop: []
