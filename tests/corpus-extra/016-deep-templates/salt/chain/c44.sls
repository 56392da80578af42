include:
  - chain.c45
c44:
  test.nop: []
