{# hi
x:
  test.nop: []
