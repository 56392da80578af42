reload:
  test.succeed_with_changes:
    - order: last
drain:
  test.nop: []
legacy:
  test.nop: []
