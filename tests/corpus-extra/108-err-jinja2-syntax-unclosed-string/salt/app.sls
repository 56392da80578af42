x:
  test.nop:
    - name: {{ 'abc }}
