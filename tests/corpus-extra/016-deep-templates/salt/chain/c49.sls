include:
  - chain.c50
c49:
  test.nop: []
