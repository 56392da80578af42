base-args:
  test.nop:
    - user: root
    - mode: 644

pkgs:
  test.nop:
    - names:
      - vim
      - curl:
        - version: 7.88
        - order: 5
      - git
    - use:
      - test: base-args
    - require_in:
      - test: after-all

after-all:
  test.nop: []

needs-curl:
  test.nop:
    - require:
      - test: curl
    - onchanges_in:
      - test: after-all
