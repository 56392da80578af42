base:
  '*':
    - chrony
