y:
  test.nop:
    - v: {{ pillar['nope']['x'] }}
