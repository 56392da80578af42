include:
  - chain.c67
c66:
  test.nop: []
