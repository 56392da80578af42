a:
  file.managed:
    - name: /etc/a
    - source: salt://t.j2
    - template: jinja
