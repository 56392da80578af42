many:
  file.managed:
    - names:
      - /etc/n1
      - /etc/n2:
        - contents: second
    - contents: first
home:
  file.managed:
    - name: ~/.bashrc
    - source: salt://files/name.j2
    - template: jinja
empty:
  file.managed:
    - name: /etc/empty
again:
  file.managed:
    - name: /etc/n1
    - source: salt://files/name.j2
    - template: jinja
    - replace: False
