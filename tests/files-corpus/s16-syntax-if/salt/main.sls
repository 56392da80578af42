syntax:
  file.managed:
    - name: /etc/e2
    - source: salt://files/syntax.j2
    - template: jinja
