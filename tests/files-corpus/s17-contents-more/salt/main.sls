#!yaml
tmpl-undefined:
  file.managed:
    - name: /etc/t1
    - contents: "a {{ nope }}"
    - template: jinja
tmpl-engine:
  file.managed:
    - name: /etc/t2
    - contents: "a"
    - template: nosuch
pillar-dict:
  file.managed:
    - name: /etc/t3
    - contents_pillar: app
grains-list:
  file.managed:
    - name: /etc/t4
    - contents_grains:
      - os
      - fqdn
enc-latin1:
  file.managed:
    - name: /etc/t5
    - contents: "caf\u00e9"
    - encoding: utf-8
empty-list:
  file.managed:
    - name: /etc/t6
    - contents: []
none-contents:
  file.managed:
    - name: /etc/t7
    - contents_pillar: app:none
/srv/r:
  file.recurse:
    - source: salt://r
    - template: jinja
    - port: 99
    - mode: 755
