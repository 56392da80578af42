include:
  - chain.c71
c70:
  test.nop: []
