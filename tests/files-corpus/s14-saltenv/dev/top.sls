dev:
  '*':
    - devapp
