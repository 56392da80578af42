base:
  '*':
    - queries
