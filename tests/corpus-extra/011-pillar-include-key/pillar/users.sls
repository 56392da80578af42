alice:
  uid: 1000
bob:
  uid: 1001
