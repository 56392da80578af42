m4:
  test.nop: []
