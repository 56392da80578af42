b:
  test.nop:
    - v: {{ 5|indent(2) }}
