{%- do pillar.update({'x': {'y': 1}}) %}
a:
  test.nop:
    - v: {{ pillar.x.nope }}
