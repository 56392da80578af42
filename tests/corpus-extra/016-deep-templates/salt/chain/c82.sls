include:
  - chain.c83
c82:
  test.nop: []
