include:
  - chain.c34
c33:
  test.nop: []
