include:
  - chain.c53
c52:
  test.nop: []
