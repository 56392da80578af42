x:
  test.nop:
    - a: {{ salt['pillar.get']('app').nope }}
