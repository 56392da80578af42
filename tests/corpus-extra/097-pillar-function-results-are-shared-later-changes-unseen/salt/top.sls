base:
  '*':
    - reader
    - writer
    - after
