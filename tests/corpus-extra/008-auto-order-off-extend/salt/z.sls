include:
  - a
extend:
  alpha:
    file:
      - order: 1
omega:
  test.nop: []
