x:
  test.nop:
    - name: {{ 08 }}
