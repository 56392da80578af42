include:
  - chain.c69
c68:
  test.nop: []
