include:
  - app.instance:
      defaults:
        instance: blue
        port: 8081
      key: apps
  - app.plain
  - srv.web
site: main
