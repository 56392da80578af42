base:
  '*': [a]
