extra:
  test.nop: []
