
b:
  test.nop:
    - v: {{ {80: 'x', '8443': 'y'}|dictsort|json }}
