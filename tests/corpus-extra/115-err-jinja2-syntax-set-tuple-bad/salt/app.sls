{% set a, = 1 %}
x:
  test.nop: []
