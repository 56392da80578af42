top:
  test.nop: []
