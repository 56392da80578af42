
f:
  test.nop:
    - v: {{ {'a': 1, 'b': 'x'}|dictsort(by='value')|json }}
