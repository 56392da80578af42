late:
  test.nop: []
