{% if 1 
x:
  test.nop: []
