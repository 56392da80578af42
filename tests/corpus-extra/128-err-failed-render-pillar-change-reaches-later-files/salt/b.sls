b:
  test.nop:
    - v: {{ raise('b sees x = ' ~ pillar.get('x', 'unset')) }}
