{% set m = salt['grains.filter_by']({'Debian': {'a': 1}}, merge=salt['pillar.get']('app')) %}x:
  test.nop:
    - a: {{ m.nope }}
