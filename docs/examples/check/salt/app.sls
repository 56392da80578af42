{% set conf = '/etc/app/app.conf' %}
app:
  pkg.installed:
    - pkgs: app-server
  service.running:
    - enabled: true
    - watch:
      - file: {{ conf }}

{{ conf }}:
  file.managed:
    - source: salt://app/app.conf
    - contents: "port = 8080"
    - requires:
      - pkg: app
