{%- set item = salt['pillar.item']('app:conf')['app:conf'] %}
{%- do item.update({'via_item': 1}) %}
{%- do salt['pillar.raw']().app.users.append('bob') %}
{%- do salt['config.get']('app:conf').update({'via_config': 1}) %}
{%- do salt['pillar.items']().app.conf.update({'never': 'kept'}) %}
{%- set later = [] %}
{%- do salt['pillar.get']('app').update({'later': later}) %}
{%- do later.append('added after') %}
{%- set local = salt['pillar.get']('app:missing', {'x': 1}) %}
{%- do local.update({'default': 'not stored'}) %}
writer:
  test.nop:
    - conf: {{ salt['pillar.get']('app:conf') | json }}
    - users: {{ salt['pillar.get']('app:users') | json }}
    - later: {{ salt['pillar.get']('app:later') | json }}
    - first_later: {{ salt['pillar.get']('app:later:0', 'none') | json }}
