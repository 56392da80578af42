base:
  '*':
    - users
