base:
  '*':
    - bind
    - bind.config
