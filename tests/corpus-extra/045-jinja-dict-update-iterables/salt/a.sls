{%- set graphite = {'port': 2003} %}
{%- do graphite.update(salt['pillar.get']('graphite')) %}
{%- set d = {} %}
{%- do d.update('') %}
{%- do d.update([]) %}
{%- do d.update(()) %}
{%- do d.update([['a', 1]]) %}
{%- do d.update([('b', 2)]) %}
{%- do d.update(['xy']) %}
{%- do d.update({'c': 3}.items()) %}
{%- do d.update(e=5) %}
{%- do d.update([['f', 6]], g=7) %}
dicts:
  test.nop:
    - graphite: {{ graphite|tojson }}
    - d: {{ d|tojson }}
    - empty: {{ dict('')|tojson }}
    - pairs: {{ dict(['xy', 'zw'])|tojson }}
    - kw: {{ dict([['a', 1]], b=2)|tojson }}
