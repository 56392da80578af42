1: {{ pillar|yaml }}
2: {{ pillar.app|yaml }}
3: {{ salt['pillar.get']('app')|yaml }}
4: {{ salt['config.get']('app')|yaml }}
{%- set lk = {'Debian': {'z': 0, 'k': {'s': 1, 'r': 2}}} %}
5: {{ salt['grains.filter_by'](lk, merge=salt['pillar.get']('app'))|yaml }}
6: {{ salt['defaults.merge']({'k': {'s': 1, 'r': 2}, 'b': {'v': 0}}, salt['pillar.get']('app'))|yaml }}
7: {{ salt['pillar.get']('app', {'k': {'s': 1, 'r': 2}, 'b': {'v': 0}}, merge=True)|yaml }}
{%- import_yaml 'd.yaml' as d %}
8: {{ d|yaml }}
{%- load_yaml as ly %}
z: 1
b: {y: 1, x: 2}
{%- endload %}
9: {{ ly|yaml }}
10: {{ grains.nested|yaml }}
11: {{ salt['pillar.items']()|yaml }}
12: {{ salt['pillar.get']('app:b')|yaml }} {{ salt['pillar.get']('aa')|yaml }}
13: {{ salt['slsutil.merge']({'b': {'v': 0}}, salt['pillar.get']('app'))|yaml }}
14: {{ {'k': salt['pillar.get']('app:c')}|yaml }} {{ salt['pillar.get']('app:a')|yaml }}
15: {{ salt['pillar.get']('nope', {'b': 1, 'a': 2})|yaml }}
