include:
  - chain.c2
c1:
  test.nop: []
