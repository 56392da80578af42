{%- do pillar.app.conf.update({'tls': True}) %}
{%- do salt['pillar.get']('app:hosts').append('tls-b') %}
tls:
  test.nop:
    - conf: {{ pillar.app.conf | json }}
    - hosts: {{ salt['pillar.get']('app:hosts') | json }}
