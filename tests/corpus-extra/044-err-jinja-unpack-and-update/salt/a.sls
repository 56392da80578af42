a:
  test.nop:
{%- for x, y in ['xyz'] %}
    - {{ x }}: {{ y }}
{%- endfor %}
