include:
  - lib
exclude:
  - id: legacy
extend:
  drain:
    test:
      - prereq:
        - test: reload
  reload:
    test:
      - watch:
        - test: config
config:
  test.succeed_with_changes:
    - order: 1
