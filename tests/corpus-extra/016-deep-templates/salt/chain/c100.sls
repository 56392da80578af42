c100:
  test.nop: []
