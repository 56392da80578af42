include:
  - chain.c25
c24:
  test.nop: []
