base:
  '*':
    - keepalived
