base:
  '*':
    - .a
    - .b.c
