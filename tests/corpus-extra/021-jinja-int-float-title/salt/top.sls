base:
  '*':
    - numbers
