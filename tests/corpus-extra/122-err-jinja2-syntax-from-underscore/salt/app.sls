{% from 'lib.jinja' import _private %}
x:
  test.nop: []
