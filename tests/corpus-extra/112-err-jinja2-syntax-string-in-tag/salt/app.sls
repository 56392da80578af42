{% 'abc' %}
x:
  test.nop: []
