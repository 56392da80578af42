x:
  test.nop:
    - name: {{ 4 is divisibleby 2 is odd }}
