db:
  password: S3cretPass-123
  user: app
