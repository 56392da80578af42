base:
  '*':
    - haproxy
