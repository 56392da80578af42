include:
  - ..

deep:
  test.nop:
    - require:
      - test: top
