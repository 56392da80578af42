include:
  - chain.c24
c23:
  test.nop: []
