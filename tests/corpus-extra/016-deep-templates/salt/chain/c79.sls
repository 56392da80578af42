include:
  - chain.c80
c79:
  test.nop: []
