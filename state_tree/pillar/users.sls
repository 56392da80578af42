users:
  deploy:
    groups: [www-data]
    ssh_key: AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 deploy@ci
  alice:
    shell: /bin/zsh
