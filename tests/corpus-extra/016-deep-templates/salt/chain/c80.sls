include:
  - chain.c81
c80:
  test.nop: []
