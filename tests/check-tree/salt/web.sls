{% set conf = '/etc/nginx/nginx.conf' %}
nginx:
  pkg.installed:
    - pkgs: nginx
  service.running:
    - enabled: true
    - requires:
      - pkg: nginx

{{ conf }}:
  file.managed:
    - source: salt://nginx/nginx.conf
    - contents: "worker_processes 4;"
    - mode: keep

/var/www:
  file.directory:
    - recurse: [user, owner]

legacy-append:
  file.append:
    - name: /etc/motd
    - txet: hello

quiet-one:  # lowstate: allow(unknown-argument)
  file.absent:
    - name: /tmp/x
    - contents: ignored

backup:
  cron.present:
    - name: /usr/local/bin/backup
    - special: '@daily'
    - minute: 5
