base:
  '*':
    - a
    - b
    - c
    - d
    - e
