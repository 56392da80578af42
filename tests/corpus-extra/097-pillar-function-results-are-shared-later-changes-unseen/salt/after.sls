after:
  test.nop:
    - conf: {{ salt['pillar.get']('app:conf') | json }}
    - conf_item: {{ salt['pillar.item']('app:conf') | json }}
    - users: {{ salt['pillar.get']('app:users') | json }}
    - users_var: {{ pillar.app.users | json }}
    - conf_var: {{ pillar.app.conf | json }}
    - conf_items: {{ salt['pillar.items']().app.conf | json }}
    - later: {{ salt['pillar.get']('app:later') | json }}
    - keys: {{ salt['pillar.keys']('app') | json }}
    - missing: {{ salt['pillar.get']('app:missing', {}) | json }}
