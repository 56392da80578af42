include:
  - chain.c77
c76:
  test.nop: []
