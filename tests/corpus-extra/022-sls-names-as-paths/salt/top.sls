base:
  '*':
    - a
    - sub/c
    - app.sub.deep
