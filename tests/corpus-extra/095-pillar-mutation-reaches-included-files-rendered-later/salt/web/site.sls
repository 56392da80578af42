site:
  test.nop:
    - conf: {{ pillar.app.conf | json }}
    - conf_get: {{ salt['pillar.get']('app:conf') | json }}
    - hosts: {{ salt['pillar.get']('app:hosts') | json }}
    - hosts_var: {{ pillar.app.hosts | json }}
