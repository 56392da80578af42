m1:
  test.nop: []
