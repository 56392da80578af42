base:
  '*':
    - salt
