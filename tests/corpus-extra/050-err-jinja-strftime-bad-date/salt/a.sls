a:
  test.nop:
    - v: "{{ '2024-13-02' | strftime }}"
