include:
  - users:
      key: accounts
  - sub.net
motd: welcome to {{ grains['id'] }}
pkgs: [a, b]
