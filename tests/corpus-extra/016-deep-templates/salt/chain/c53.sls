include:
  - chain.c54
c53:
  test.nop: []
