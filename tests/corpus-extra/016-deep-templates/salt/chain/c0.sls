include:
  - chain.c1
c0:
  test.nop: []
