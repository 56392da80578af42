{%- do pillar.update({'x': 'set by a'}) %}
a:
  test.nop:
    - v: {{ nope.boom }}
