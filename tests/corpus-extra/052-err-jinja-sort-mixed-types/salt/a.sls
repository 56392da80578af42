
a:
  test.nop:
    - v: {{ [1, 'a']|sort|json }}
