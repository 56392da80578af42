include:
  - chain.c62
c61:
  test.nop: []
