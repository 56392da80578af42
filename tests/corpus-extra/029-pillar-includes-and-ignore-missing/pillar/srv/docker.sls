include:
  - srv.web
docker_version: auto
