include:
  - chain.c84
c83:
  test.nop: []
