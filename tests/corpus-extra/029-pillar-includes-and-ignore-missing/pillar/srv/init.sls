include:
  - srv.docker
