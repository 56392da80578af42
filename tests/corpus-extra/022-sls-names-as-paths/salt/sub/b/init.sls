nmap:
  pkg.installed:
    - require:
      - sls: sub/c
