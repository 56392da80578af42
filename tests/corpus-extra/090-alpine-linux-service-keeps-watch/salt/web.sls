nginx_conf:
  file.managed:
    - name: /etc/nginx/nginx.conf
    - contents: 'worker_processes 1;'

nginx_pkg:
  pkg.installed:
    - name: nginx
    - watch:
      - file: nginx_conf

nginx_service:
  service.running:
    - name: nginx
    - enable: True
    - require:
      - pkg: nginx_pkg
    - watch:
      - file: nginx_conf

php_service:
  service.running:
    - name: php-fpm
    - watch_any:
      - file: nginx_conf
      - pkg: nginx_pkg

reload_hook:
  cmd.run:
    - name: /usr/bin/reload-hook
    - watch:
      - service: nginx_service
