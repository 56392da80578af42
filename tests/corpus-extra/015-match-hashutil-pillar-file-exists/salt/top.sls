base:
  '*':
    - fns
