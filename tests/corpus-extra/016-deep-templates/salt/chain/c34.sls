include:
  - chain.c35
c34:
  test.nop: []
