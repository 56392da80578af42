{% set nothing = None %}
base-opts: &opts
  test.nop:
    - mode: '0644'
    - perms: 0755
    - ratio: 1.50
    - big: 1_000_000
    - when: 2024-05-06T07:08:09Z
    - octalish: 0o17
    - hexa: 0xff
    - neg: -12
    - exp: 6.02e+23
copy: *opts
texts:
  test.nop:
    - keep: |+
        line1

    - strip: >-
        folded
        text
    - plain: this is
        a multi line
        plain scalar
    - "quoted key": "tab\there é ✓"
    - flow: {a: 1, b: [x, 'y'], c: ~}
    - none_printed: {{ nothing }}
    - bool_printed: {{ 1 == 1 }}
    - list_printed: {{ [1, 'a', None] }}
