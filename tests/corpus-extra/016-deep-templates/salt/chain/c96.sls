include:
  - chain.c97
c96:
  test.nop: []
