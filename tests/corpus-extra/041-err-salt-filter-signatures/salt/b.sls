b:
  test.nop:
    - v: {{ [1, 3]|max(true) }}
