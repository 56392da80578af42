include:
  - chain.c41
c40:
  test.nop: []
