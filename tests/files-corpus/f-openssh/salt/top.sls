base:
  '*':
    - openssh.config
    - openssh.banner
    - openssh.known_hosts
