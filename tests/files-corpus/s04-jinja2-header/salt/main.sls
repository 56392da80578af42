hdr:
  file.managed:
    - name: /etc/hdr
    - source: salt://files/hdr.j2
    - template: jinja
nohdr:
  file.managed:
    - name: /etc/nohdr
    - source: salt://files/nohdr.j2
    - template: jinja
