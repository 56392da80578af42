z:
  test:
    - name: q
