base:
  '*':
    - harden
    - site
