include:
  - chain.c85
c84:
  test.nop: []
