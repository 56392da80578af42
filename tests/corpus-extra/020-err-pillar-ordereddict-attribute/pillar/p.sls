app:
  port: 80
  sub: {x: 1}
