m6:
  test.nop: []
