{%- from tpldir ~ "/map.jinja" import nginx with context %}
nginx-service:
  service.running:
    - name: {{ nginx.service }}
    - enable: True
    - watch:
      - file: nginx-config
    - require:
      - pkg: nginx-package
