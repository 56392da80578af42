site:
  test.nop:
    - pillar_get: {{ salt['pillar.get']('app:conf') | json }}
    - config_get: {{ salt['config.get']('app:conf') | json }}
    - hosts: {{ salt['pillar.get']('app:hosts') | json }}
    - pillar_var: {{ pillar.app.conf | json }}
    - pillar_items: {{ salt['pillar.items']().app.conf | json }}
    - grains_var: {{ grains.roles | json }}
    - grains_get: {{ salt['grains.get']('roles') | json }}
    - missing: {{ salt['pillar.get']('app:missing', {}) | json }}
