app:
  conf:
    port: 80
  users:
    - alice
