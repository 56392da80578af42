tier: front
flags:
  beta: true
