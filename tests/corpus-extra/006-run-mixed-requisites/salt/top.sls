base:
  '*':
    - mixed
