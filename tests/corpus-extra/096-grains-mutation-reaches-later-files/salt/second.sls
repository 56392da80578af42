second:
  test.nop:
    - roles: {{ grains.roles | json }}
    - site: {{ grains.get('site', 'none') | json }}
    - roles_get: {{ salt['grains.get']('roles') | json }}
    - net_get: {{ salt['grains.get']('net') | json }}
    - net_config: {{ salt['config.get']('net') | json }}
    - net_items: {{ salt['grains.items']().net | json }}
    - net_var: {{ grains.net | json }}
