base:
  '*':
    - samba
    - samba.config
