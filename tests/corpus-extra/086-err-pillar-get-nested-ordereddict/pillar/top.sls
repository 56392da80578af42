base:
  '*': [p]
