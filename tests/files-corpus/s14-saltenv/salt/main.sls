base-file:
  file.managed:
    - name: /etc/base
    - source: salt://files/t.j2
    - template: jinja
