base:
  '*':
    - srv
    - site
  'm1':
    - optional.a
    - ignore_missing: True
  'm*':
    - optional.b
  'nomatch':
    - optional.b
    - ignore_missing: True
