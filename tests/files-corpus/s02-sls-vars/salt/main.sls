nosls:
  file.managed:
    - name: /etc/nosls
    - source: salt://files/sls.j2
    - template: jinja
withsls:
  file.managed:
    - name: /etc/withsls
    - source: salt://files/sls.j2
    - template: jinja
    - context:
        sls: app.web.config
        tpldir: app/web
