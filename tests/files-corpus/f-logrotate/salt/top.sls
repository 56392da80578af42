base:
  '*':
    - logrotate
