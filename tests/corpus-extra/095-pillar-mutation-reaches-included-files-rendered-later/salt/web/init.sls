{#- Rendered first: the files it includes are rendered after it, so it
    does not see what they change. #}
include:
  - .tls
  - .site
web:
  test.nop:
    - conf: {{ pillar.app.conf | json }}
    - hosts: {{ salt['pillar.get']('app:hosts') | json }}
