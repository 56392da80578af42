include:
  - chain.c36
c35:
  test.nop: []
