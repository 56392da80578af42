base:
  '*':
    - a
    - b
    - c
    - d
