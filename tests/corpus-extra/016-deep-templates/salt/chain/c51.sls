include:
  - chain.c52
c51:
  test.nop: []
