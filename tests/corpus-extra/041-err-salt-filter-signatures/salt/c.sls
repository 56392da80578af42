c:
  test.nop:
    - v: {{ [{'n': 1}]|min(attribute='n') }}
