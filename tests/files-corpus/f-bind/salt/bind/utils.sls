bind9-host:
  pkg.installed
