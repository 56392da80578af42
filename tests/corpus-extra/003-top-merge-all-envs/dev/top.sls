dev:
  'web*':
    - extra
    - devtools
base:
  '*':
    - late
