
c:
  test.nop:
    - v: {{ [{'v': 'a'}, {'v': 2}]|sort(attribute='v')|json }}
