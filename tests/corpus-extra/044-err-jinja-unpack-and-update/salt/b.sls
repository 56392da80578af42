{%- set x, y = 'x' %}
b:
  test.nop:
    - v: {{ x }}
