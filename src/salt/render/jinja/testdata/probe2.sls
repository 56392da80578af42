{%- from 'lib/m.jinja' import box, exported %}
1: {{ box('x') }} {{ box('y', n=2) }}
2: {% call box('z') %}inner{% endcall %}
{%- set ns = namespace(found=false) %}
{%- for i in [1, 2] %}{% if i == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}
5: {{ ns.found }}
{%- set x = 'outer' %}
{%- if true %}{% set x = 'inner' %}{% endif %}
6: {{ x }}
{%- set d = {'a': 1} %}
{%- do d.pop('a') if d.a is defined %}
7: {{ d }}
8: {% for k, v in {'b': 1, 'a': 2}.items() %}{{ k }}={{ v }};{% endfor %}
9: {{ loop is defined }} {% for i in ['a', 'b'] %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.length }}{% endfor %}
10: {% for i in [1,2,3] if i > 5 %}{{ i }}{% else %}empty{% endfor %}
{%- set l = [] %}
{%- for i in range(3) %}{% do l.append({'i': i}) %}{% endfor %}
11: {{ l|map(attribute='i')|list }} {{ l|selectattr('i', 'equalto', 1)|list }}
12: {{ [1, 2, 1]|select('equalto', 1)|list }} {{ ['a', '', 'b']|select|list }} {{ [1,2,3]|reject('odd')|list }}
13: {{ {'a': {'b': 1}}['a']['b'] }} {{ grains.get('os') }} {{ grains['os_family'] }}
14: {% filter upper %}abc{% endfilter %} {% with q = 5 %}{{ q }}{% endwith %}
15: {{ [1, 2] + [3] }} {{ 'ab' in 'cab' }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }}
16: {{ "a'b" }} {{ ["a'b", 'c"d', 'e\'f"'] }}
17: {{ {'a': 1}|dictsort|first }} {{ [('a', 1)]|list }}
18: {{ 'abc'|length }} {{ {'a': 1}|length }} {{ range(5)|batch(2)|list }}
19: {{ [1, 2, 3]|groupby('x') if false else 'skip' }}
20: {{ 5|string + '!' }} {{ (5 ~ '')|int + 1 }} {{ '1.5'|float * 2 }}
21: {{ "tab\there"|e }} {{ '<b>'|safe }} {{ '<b>' }}
22: {{ [none, false, 0, '']|select|list }} {{ true and 'x' }} {{ not none }}
