base:
  '*':
    - edge
