{% import 'x.jinja' %}
x:
  test.nop: []
