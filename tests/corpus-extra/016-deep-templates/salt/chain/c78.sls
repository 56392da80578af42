include:
  - chain.c79
c78:
  test.nop: []
