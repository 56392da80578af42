b:
  test.nop:
    - v: "{{ '2024-01-32' | strftime }}"
