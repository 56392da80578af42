include:
  - chain.c60
c59:
  test.nop: []
