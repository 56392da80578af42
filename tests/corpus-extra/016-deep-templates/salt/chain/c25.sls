include:
  - chain.c26
c25:
  test.nop: []
