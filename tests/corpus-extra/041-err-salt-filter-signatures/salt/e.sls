e:
  test.nop:
    - v: {{ [1, 2, 1]|unique|list }}
    - w: {{ [1, 3]|max }}
    - x: {{ 'a,b'.split(',') }}
