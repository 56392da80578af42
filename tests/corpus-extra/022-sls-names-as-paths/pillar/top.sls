base:
  '*':
    - sub/p
