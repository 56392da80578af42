t-nl:
  file.managed:
    - name: /etc/t-nl
    - source: salt://files/t-nl
    - template: jinja
t-nonl:
  file.managed:
    - name: /etc/t-nonl
    - source: salt://files/t-nonl
    - template: jinja
t-two:
  file.managed:
    - name: /etc/t-two
    - source: salt://files/t-two
    - template: jinja
t-crlf:
  file.managed:
    - name: /etc/t-crlf
    - source: salt://files/t-crlf
    - template: jinja
p-nonl:
  file.managed:
    - name: /etc/p-nonl
    - source: salt://files/p-nonl

p-crlf:
  file.managed:
    - name: /etc/p-crlf
    - source: salt://files/p-crlf

t-empty:
  file.managed:
    - name: /etc/t-empty
    - source: salt://files/t-empty
    - template: jinja
t-onlynl:
  file.managed:
    - name: /etc/t-onlynl
    - source: salt://files/t-onlynl
    - template: jinja
