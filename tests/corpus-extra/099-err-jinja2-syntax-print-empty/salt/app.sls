x:
  test.nop:
    - name: {{ }}
