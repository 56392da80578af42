{#- Changes data in place, as openvpn-formula's hardening.sls does. #}
{%- set conf = salt['pillar.get']('app:conf') %}
{%- do conf.update({'tls': 'on'}) %}
{%- do salt['pillar.get']('app:hosts').append('b') %}
{%- do pillar.app.conf.update({'gzip': 'on'}) %}
{%- do grains.roles.append('db') %}
{%- set extra = salt['pillar.get']('app:missing', {}) %}
{%- do extra.update({'never': 'stored'}) %}
harden:
  test.nop:
    - pillar_get: {{ salt['pillar.get']('app:conf') | json }}
    - pillar_var: {{ pillar.app.conf | json }}
