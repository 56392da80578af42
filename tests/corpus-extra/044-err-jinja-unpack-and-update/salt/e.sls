{%- set ch = {'host': 'h'} %}
{%- do ch.update('ab') %}
e:
  test.nop:
    - v: {{ ch|json }}
