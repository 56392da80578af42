macros:
  file.managed:
    - name: /etc/m1
    - source: salt://app/files/conf.j2
    - template: jinja
relative-with-tpldir:
  file.managed:
    - name: /etc/m2
    - source: salt://app/files/rel.j2
    - template: jinja
    - context:
        tpldir: app
relative-no-tpldir:
  file.managed:
    - name: /etc/m3
    - source: salt://app/files/rel.j2
    - template: jinja
after-absolute:
  file.managed:
    - name: /etc/m4
    - source: salt://app/files/after.j2
    - template: jinja
