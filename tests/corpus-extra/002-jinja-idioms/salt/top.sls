base:
  'G@roles:web':
    - idioms
