include:
  - chain.c61
c60:
  test.nop: []
