
g:
  test.nop:
    - v: {{ ['a', 'b', 3]|sort(reverse=true)|json }}
