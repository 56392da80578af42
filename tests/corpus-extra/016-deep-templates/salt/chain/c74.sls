include:
  - chain.c75
c74:
  test.nop: []
