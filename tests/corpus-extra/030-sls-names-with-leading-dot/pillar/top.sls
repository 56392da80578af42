base:
  '*':
    - .defaults
