include:
  - chain.c88
c87:
  test.nop: []
