data:
  file.managed:
    - name: /etc/data
    - source: salt://files/data.j2
    - template: jinja
    - context:
        items: {{ pillar['app']['list'] | json }}
