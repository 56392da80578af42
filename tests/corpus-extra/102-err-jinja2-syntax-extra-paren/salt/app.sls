x:
  test.nop:
    - name: {{ 1 + 2) }}
