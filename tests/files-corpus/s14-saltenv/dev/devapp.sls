dev-file:
  file.managed:
    - name: /etc/dev
    - source: salt://files/t.j2
    - template: jinja
