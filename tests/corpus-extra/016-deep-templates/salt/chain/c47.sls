include:
  - chain.c48
c47:
  test.nop: []
