base:
  '*':
    - users
  'web*':
    - web
