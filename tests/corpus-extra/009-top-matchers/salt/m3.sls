m3:
  test.nop: []
