shared:
  test.nop: []
