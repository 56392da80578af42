web:
  port: 80
