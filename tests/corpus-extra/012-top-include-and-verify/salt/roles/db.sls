roles-db:
  test.nop: []
