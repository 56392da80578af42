include:
  - chain.c40
c39:
  test.nop: []
