{%- set o = odict([('b', 1), ('a', {'z': 1, 'y': 2})]) %}
1: {{ o }}
2: {{ [o] }}
3: {{ {'k': o} }}
4: {{ o|yaml }}
5: {{ o|yaml(False) }}
6: {{ {'z': o, 'a': 1}|yaml }}
7: {{ o|json }}
8: {{ o|tojson }}
9: {{ salt['slsutil.serialize']('yaml', o) }}
10: {{ salt['slsutil.serialize']('json', o) }}
{%- set c = o.copy() %}
11: {{ c|yaml }}
{%- set d = dict(o) %}
12: {{ d|yaml }}
{%- set m = salt['defaults.merge']({'x': o}, {'x': {'c': 3}}) %}
13: {{ m|yaml }}
{%- set lk = {'Debian': {'srv': o}} %}
{%- set f = salt['grains.filter_by'](lk, merge={'srv': {'c': 3}}) %}
14: {{ f|yaml }} {{ lk.Debian.srv|yaml }}
{%- set g = salt['grains.filter_by']({'Debian': {'srv': o}}, merge={'srv': {'c': 3}}, base='default') %}
15: {{ g|yaml }}
16: {{ o.items()|list }} {{ o is mapping }}
{%- set fb = salt['grains.filter_by']({'Debian': {'a': {'b': 1}}}, merge={'z': 1}) %}
{%- do fb.a.update({'c': 2}) %}
17: {{ fb }}
{%- set lk2 = {'Debian': {'a': {'b': 1}}} %}
{%- set fb2 = salt['grains.filter_by'](lk2) %}
{%- do fb2.a.update({'c': 2}) %}
18: {{ lk2 }}
{%- set dst = {'k': {'x': 1}} %}
{%- set mm = salt['defaults.merge'](dst, {'k': {'y': 2}, 'n': 3}) %}
{%- do mm.k.update({'w': 0}) %}
19: {{ dst }} {{ mm is sameas dst }}
{%- set nodes = {'n1': {'b': 1}} %}
{%- set up = salt['defaults.update'](nodes, {'a': 0, 'b': 0}) %}
20: {{ nodes }} {{ up is sameas nodes }}
{%- set su = {'k': {'x': 1}} %}
{%- set su2 = salt['slsutil.update'](su, {'k': {'y': 1}}) %}
21: {{ su }} {{ su2 is sameas su }}
22: {{ salt['cp.list_states']() }}
23: {{ salt['cp.list_master']() }}
24: {{ salt['cp.list_master'](prefix='p3/') }} {{ salt['cp.list_master'](prefix='/p3/sub') }}
25: {{ salt['cp.list_master_dirs']() }} {{ salt['cp.list_master_dirs'](prefix='p3/s') }}
26: {{ salt['cp.list_master_dirs'](saltenv='base', prefix='nope') }}
