zeta:
  test.nop:
    - names: [n2, n1]
alpha:
  file.managed:
    - name: /tmp/alpha
    - order: 3
beta:
  cmd.run:
    - name: echo beta
    - require:
      - test: n1
