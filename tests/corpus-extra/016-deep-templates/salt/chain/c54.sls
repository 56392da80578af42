include:
  - chain.c55
c54:
  test.nop: []
