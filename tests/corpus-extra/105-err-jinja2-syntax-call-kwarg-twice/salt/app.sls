x:
  test.nop:
    - name: {{ foo(a=1, 2) }}
