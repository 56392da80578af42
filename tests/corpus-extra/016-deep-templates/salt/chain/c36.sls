include:
  - chain.c37
c36:
  test.nop: []
