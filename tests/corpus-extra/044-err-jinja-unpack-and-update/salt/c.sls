{%- set x, y = 5 %}
c:
  test.nop:
    - v: {{ x }}
