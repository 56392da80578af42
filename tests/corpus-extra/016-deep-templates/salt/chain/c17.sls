include:
  - chain.c18
c17:
  test.nop: []
