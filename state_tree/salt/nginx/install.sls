{%- from tpldir ~ "/map.jinja" import nginx with context %}
nginx-package:
  pkg.installed:
    - name: {{ nginx.package }}
