base:
  '*':
    - q
