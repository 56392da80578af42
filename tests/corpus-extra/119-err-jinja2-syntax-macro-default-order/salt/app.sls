{% macro m(a=1, b) %}{% endmacro %}
x:
  test.nop: []
