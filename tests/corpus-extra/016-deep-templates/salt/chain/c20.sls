include:
  - chain.c21
c20:
  test.nop: []
