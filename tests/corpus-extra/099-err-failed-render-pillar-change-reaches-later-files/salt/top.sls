base:
  '*': [a, b]
