base:
  '*':
    - a
    - c
