app:
  name: web
  ports: [80, 443]
  opts: {}
  deep: {x: {y: 1}}
