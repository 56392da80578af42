m2:
  test.nop: []
