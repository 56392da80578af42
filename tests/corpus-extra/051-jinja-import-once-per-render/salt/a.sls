{%- from 'lib/map.jinja' import lst, cfg %}
{%- do lst.append(9) %}{%- do cfg.update({'b': 2}) %}
{%- from 'lib/map.jinja' import lst as lst2, cfg as cfg2 %}
{%- from 'lib/macros.jinja' import show %}
{%- from 'lib/map.jinja' import extra %}
{%- do extra.update({'f': 1}) %}
x:
  test.nop:
    - a: {{ lst2 | json }}
    - b: {{ cfg2 | json }}
    - c: "{{ show() }}"
    - d: {{ extra | json }}
