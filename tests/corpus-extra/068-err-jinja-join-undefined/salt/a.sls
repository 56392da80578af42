{% set pkgs = ['nginx', missing_pkg, 'curl'] %}
install:
  pkg.installed:
    - name: {{ pkgs|join(' ') }}
