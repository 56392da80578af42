{#- Rendered before writer: sees nothing of what writer changes. #}
reader:
  test.nop:
    - conf: {{ salt['pillar.get']('app:conf') | json }}
    - users: {{ pillar.app.users | json }}
