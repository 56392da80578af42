{%- set ch = {'host': 'h'} %}
{%- do ch.update(None) %}
d:
  test.nop:
    - v: {{ ch|json }}
