net:
  dns: [1.1.1.1]
  domain: example.org
