base:
  '*':
    - nginx.config
