include:
  - chain.c46
c45:
  test.nop: []
