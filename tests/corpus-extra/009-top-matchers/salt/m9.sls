m9:
  test.nop: []
