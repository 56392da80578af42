x:
  test.nop:
    - name: {{ 1. }}
