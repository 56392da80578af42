app:
  port: 8443
  list: [x, y]
  name: web
