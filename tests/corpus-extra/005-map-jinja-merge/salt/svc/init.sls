{% from tpldir ~ '/map.jinja' import svc with context %}
svc-pkg:
  pkg.installed:
    - name: {{ svc.pkg }}
svc-conf:
  file.managed:
    - name: /etc/svc.conf
    - contents: {{ svc.conf | tojson }}
    - users: {{ svc.users }}
    - require:
      - pkg: svc-pkg
