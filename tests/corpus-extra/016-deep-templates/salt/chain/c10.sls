include:
  - chain.c11
c10:
  test.nop: []
