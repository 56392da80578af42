include:
  - chain.c64
c63:
  test.nop: []
