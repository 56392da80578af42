include:
  - chain.c5
c4:
  test.nop: []
