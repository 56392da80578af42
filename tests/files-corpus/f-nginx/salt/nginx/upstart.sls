include:
  - nginx.deprecated
