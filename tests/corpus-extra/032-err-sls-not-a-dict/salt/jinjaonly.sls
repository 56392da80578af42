#!jinja
j:
  test.nop:
    - v: {{ 1 }}
