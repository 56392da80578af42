include:
  - chain.c100
c99:
  test.nop: []
