x:
  test.nop:
    - a: {{ salt['pillar.get']('app:sub').nope }}
    - b: {{ pillar.get('list')[0].nope }}
