{%- from tpldir ~ "/map.jinja" import nginx with context %}
nginx-config:
  file.managed:
    - name: {{ nginx.config }}
    - source: salt://nginx/files/nginx.conf.j2
    - template: jinja
    - user: root
    - mode: 0644
    - context:
        worker_processes: {{ nginx.worker_processes }}
        user: {{ nginx.user }}
    - require:
      - pkg: nginx-package

{%- for site, conf in nginx.sites | dictsort %}

nginx-site-{{ site }}:
  file.managed:
    - name: /etc/nginx/sites-enabled/{{ site }}
    - contents: |
        server {
          listen {{ conf.port | default(80) }};
          server_name {{ conf.server_name }};
          root {{ conf.root }};
        }
    - require:
      - file: nginx-config
    - watch_in:
      - service: nginx-service
{%- endfor %}
