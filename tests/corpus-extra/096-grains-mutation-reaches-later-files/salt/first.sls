{%- do grains.roles.append('db') %}
{%- do grains.update({'site': 'lab'}) %}
{%- do salt['grains.get']('net:dns').append('9.9.9.9') %}
{%- set net = salt['grains.item']('net').net %}
{%- do net.update({'mtu': 1500}) %}
first:
  test.nop:
    - roles: {{ grains.roles | json }}
    - dns: {{ salt['grains.get']('net:dns') | json }}
