svc:
  lookup:
    pkg: svc-custom
  conf:
    port: 8080
