{%- set a, b = 'xy' %}
{%- set c, d = {'k1': 1, 'k2': 2} %}
{%- set e, f = 1, 2 %}
unpack:
  test.nop:
{%- for a1, b1 in {'ab': 1, 'cd': 2} %}
    - {{ a1 }}: {{ b1 }}
{%- endfor %}
{%- for a2, b2 in ['xy'] %}
    - {{ a2 }}: {{ b2 }}
{%- endfor %}
{%- for k, v in {'p': 1, 'q': 2}|dictsort %}
    - {{ k }}: {{ v }}
{%- endfor %}
{%- for k, v in {'r': 3}.items() %}
    - {{ k }}: {{ v }}
{%- endfor %}
{%- for x, y in 'mn', 'op' %}
    - {{ x }}: {{ y }}
{%- endfor %}
    - set_str: {{ a }}{{ b }}
    - set_dict: {{ c }} {{ d }}
    - set_tuple: {{ e + f }}
loops:
  test.nop:
{%- for c in 'ab' %}
    - s{{ loop.index }}: {{ loop.length }} {{ loop.revindex }} {{ loop.revindex0 }} {{ loop.previtem is defined }} {{ loop.nextitem|default('-') }} {{ loop.first }} {{ loop.last }}
{%- endfor %}
{%- for n in [1, 2, 3]|map('string') %}
    - m{{ loop.index0 }}: {{ n }}/{{ loop.length }} {{ loop.previtem|default('-') }}
{%- endfor %}
{%- for n in [1, 2, 3, 4]|select('odd') %}
    - o{{ loop.index }}: {{ n }}/{{ loop.length }}
{%- endfor %}
{%- for c in 'xyz' if c != 'y' %}
    - f{{ loop.index }}: {{ c }}/{{ loop.length }}
{%- endfor %}
