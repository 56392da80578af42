base:
  '*':
    - wrap
