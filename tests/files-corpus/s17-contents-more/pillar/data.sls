app:
  a: 1
  b: [x]
  none: null
