include:
  - chain.c20
c19:
  test.nop: []
