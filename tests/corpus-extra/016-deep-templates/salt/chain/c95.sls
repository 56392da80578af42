include:
  - chain.c96
c95:
  test.nop: []
