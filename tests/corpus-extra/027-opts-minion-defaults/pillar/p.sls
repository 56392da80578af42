role: web
nested:
  a: 1
  b: [x, y]
