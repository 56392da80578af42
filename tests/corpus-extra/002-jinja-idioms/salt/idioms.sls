{%- set sites = {'b': {'port': 81, 'on': True}, 'a': {'port': 80, 'on': True}, 'c': {'port': 82, 'on': False}} %}
{%- set ns = namespace(count=0) %}
{%- macro state(id) -%}
{{ id }}:
  test.nop:
    {{ caller() | indent(4) }}
{%- endmacro %}
{%- for name, site in sites | dictsort %}
{%- if site.on %}
{%- set ns.count = ns.count + 1 %}
{% call state('site-' ~ name) %}- port: {{ site.port }}
- index: {{ loop.index }}
- upper: {{ name | upper }}{% endcall %}
{%- endif %}
{%- endfor %}

summary:
  test.nop:
    - enabled: {{ ns.count }}
    - roles: {{ grains['roles'] | tojson }}
    - joined: "{{ grains['roles'] | join(',') }}"
    - first_role: {{ grains.roles | first }}
    - title: {{ 'hello world' | title }}
    - replaced: {{ 'a-b-c'.replace('-', '_') }}
    - split: {{ 'x:y:z'.split(':') }}
    - on_ports: {{ sites.values() | selectattr('on') | map(attribute='port') | sort | list }}
    - inline: {{ {'k': [1, 2], 'v': None} | yaml }}
