include:
  - chain.c99
c98:
  test.nop: []
