include:
  - chain.c90
c89:
  test.nop: []
