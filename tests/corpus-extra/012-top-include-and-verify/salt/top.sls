include:
  - tops.extra
base:
  '*':
    - roles.*
    - shared
  'web*':
    - shared
    - roles.web
