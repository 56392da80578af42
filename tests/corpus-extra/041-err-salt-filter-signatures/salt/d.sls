d:
  test.nop:
    - v: {{ 'a,b'|split(',')|json }}
