include:
  - chain.c14
c13:
  test.nop: []
