include:
  - sub/b

x:
  test.nop:
    - v: {{ pillar['k'] }}
