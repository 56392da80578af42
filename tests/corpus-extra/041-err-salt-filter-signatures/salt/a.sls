a:
  test.nop:
    - v: {{ [1, 2, 1]|unique(true)|list }}
