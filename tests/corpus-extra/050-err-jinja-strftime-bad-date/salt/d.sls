d:
  test.nop:
    - v: "{{ '0000-01-01' | strftime }}"
