base:
  '*':
    - example
