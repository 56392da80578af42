x:
  test.nop:
    - name: {{ dict(**{'a': 1}, *[1]) }}
