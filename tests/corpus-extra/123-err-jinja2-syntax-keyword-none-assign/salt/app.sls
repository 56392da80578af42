{% set None = 2 %}
x:
  test.nop: []
