show:
  test.nop:
    - accounts: {{ salt['pillar.get']('accounts') | tojson }}
    - uid: {{ salt['pillar.get']('accounts:bob:uid') }}
    - dns: {{ pillar['net']['dns'] }}
    - domain: {{ salt['pillar.get']('net/domain', delimiter='/') }}
    - pkgs: {{ pillar.pkgs }}
    - motd: {{ pillar.motd }}
    - missing: {{ salt['pillar.get']('nope:deeper', 'dflt') }}
    - cfg: {{ salt['config.get']('net:domain') }}
