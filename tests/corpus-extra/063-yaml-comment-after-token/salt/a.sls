quoted-then-comment:
  test.nop:
    - name: 'single'#note
    - double: "double"#note: not a key
    - names: [a, b]#note
    - map: {k: v}#note
    - text: |#note
        kept
