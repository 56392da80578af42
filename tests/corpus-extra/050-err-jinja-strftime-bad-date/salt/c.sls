c:
  test.nop:
    - v: "{{ '2024-01-02 25:00' | strftime }}"
