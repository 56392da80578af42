base:
  '*':
    - deep
    - chain.c0
