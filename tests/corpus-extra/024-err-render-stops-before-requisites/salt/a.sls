include:
  - b

x:
  test.nop:
    - require:
      - sls: b
      - test: y
