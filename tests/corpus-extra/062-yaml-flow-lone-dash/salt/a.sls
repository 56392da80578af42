lone-dash-flow:
  test.nop:
    - names: [-, b]
    - joined: {list_join: [-, [a, b]]}
    - trailing: [a, -]
    - mapvalue: {k: -, j: -x}
    - nested: [[-], {-: -}]
