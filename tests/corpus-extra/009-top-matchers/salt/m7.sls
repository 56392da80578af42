m7:
  test.nop: []
