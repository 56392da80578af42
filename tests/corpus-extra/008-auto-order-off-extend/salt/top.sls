base:
  '*':
    - z
    - a
