include:
  - chain.c38
c37:
  test.nop: []
