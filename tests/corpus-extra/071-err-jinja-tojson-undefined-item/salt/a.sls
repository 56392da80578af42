{% set pkgs = ['nginx', extra_pkg] %}
packages:
  pkg.installed:
    - pkgs: {{ pkgs|tojson }}
