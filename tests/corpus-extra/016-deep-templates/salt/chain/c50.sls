include:
  - chain.c51
c50:
  test.nop: []
