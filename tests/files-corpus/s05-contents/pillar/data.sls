app:
  key: |
    -----BEGIN KEY-----
    abc
    -----END KEY-----
  other: plain
  dict:
    a: 1
