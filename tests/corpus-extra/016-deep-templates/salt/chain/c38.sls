include:
  - chain.c39
c38:
  test.nop: []
