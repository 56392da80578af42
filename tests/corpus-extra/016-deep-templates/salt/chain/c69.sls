include:
  - chain.c70
c69:
  test.nop: []
