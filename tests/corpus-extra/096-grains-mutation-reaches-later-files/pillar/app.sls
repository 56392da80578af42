app: {}
