pkgs: [c]
net:
  dns: [9.9.9.9]
