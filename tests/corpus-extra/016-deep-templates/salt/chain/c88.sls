include:
  - chain.c89
c88:
  test.nop: []
