x:
  test.nop:
    - name: {{ {'a': } }}
