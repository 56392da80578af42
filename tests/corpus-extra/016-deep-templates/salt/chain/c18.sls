include:
  - chain.c19
c18:
  test.nop: []
