base:
  '*':
    - common
  'os:Debian':
    - match: grain
    - debian
