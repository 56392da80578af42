
d:
  test.nop:
    - v: {{ [1, none]|sort|json }}
