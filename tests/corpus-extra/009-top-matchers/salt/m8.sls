m8:
  test.nop: []
