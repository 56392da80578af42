app:
  sub:
    k: 1
  top: 2
list:
  - {x: 1}
