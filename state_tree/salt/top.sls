base:
  '*':
    - users
  'web*':
    - nginx
  'G@roles:app':
    - app
