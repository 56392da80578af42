include:
  - shared
roles-web:
  test.nop: []
