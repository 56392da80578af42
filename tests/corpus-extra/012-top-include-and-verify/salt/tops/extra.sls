base:
  'web01':
    - late
