include:
  - chain.c68
c67:
  test.nop: []
