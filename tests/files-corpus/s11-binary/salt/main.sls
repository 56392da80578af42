bin:
  file.managed:
    - name: /etc/logo.png
    - source: salt://files/logo.bin
bin-tmpl:
  file.managed:
    - name: /etc/logo2.png
    - source: salt://files/latin1.txt
    - template: jinja
utf8:
  file.managed:
    - name: /etc/utf8
    - source: salt://files/utf8.j2
    - template: jinja
