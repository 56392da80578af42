base:
  '*':
    - plain
    - alist
    - jinjaonly
    - fine
