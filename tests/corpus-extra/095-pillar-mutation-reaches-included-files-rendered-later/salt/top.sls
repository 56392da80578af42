base:
  '*':
    - web
    - report
