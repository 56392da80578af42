devtools:
  test.nop: []
