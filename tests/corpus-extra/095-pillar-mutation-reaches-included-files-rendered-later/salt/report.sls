{%- do pillar.app.conf.update({'seen_by': 'report'}) %}
report:
  test.nop:
    - conf: {{ pillar.app.conf | json }}
    - hosts: {{ salt['config.get']('app:hosts') | json }}
