c:
  test.nop:
    - v: {{ [1]|indent(2) }}
