split-cases:
  test.nop:
    - s: '{{ "a\x1cb c\u2028d".split()|tojson }}'
    - r: '{{ " a\x1db  c\x1f".rsplit(None, 1)|tojson }}'
    - l: '{{ "\x1ea\x1fb c ".split(None, 1)|tojson }}'
    - p: '{{ " x  y ".split()|tojson }} {{ "x y z".rsplit(maxsplit=1)|tojson }}'
