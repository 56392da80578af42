{% load_yaml cfg %}a: 1{% endload %}
x:
  test.nop: []
