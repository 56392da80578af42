include:
  - chain.c63
c62:
  test.nop: []
