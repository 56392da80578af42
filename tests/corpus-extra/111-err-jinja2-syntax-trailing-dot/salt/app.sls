x:
  test.nop:
    - name: {{ foo. }}
