a:
  test.nop:
    - require:
      - [x, y]
b:
  test.nop:
    - require_in:
      - test.nop: a
c:
  test.nop:
    - names:
        one: 1
