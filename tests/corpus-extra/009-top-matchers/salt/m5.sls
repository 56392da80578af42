m5:
  test.nop: []
