base:
  '*':
    - common
dev:
  'web*':
    - devtools
