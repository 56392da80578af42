app:
  conf:
    port: 80
  hosts: [a]
