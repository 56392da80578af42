{%- set v = 'ok' %}
{%- set fencing = {'enable': true, 'stonith_enabled': false} %}
{%- set ports = {'http': 80, 'ssh': 22, 'dns': 53} %}
{%- set users = [{'n': 'bob', 'id': 2}, {'n': 'Al', 'id': 1}, {'n': 'al', 'id': 3}] %}
tuples:
  test.nop:
{%- if false, false %}
    - a: tuple-is-truthy
{%- endif %}
{%- if fencing.enable and fencing['stonith_enabled'], False == True %}
    - b: suse-ha-idiom
{%- endif %}
{%- if false %}
    - c: no
{%- elif false, %}
    - c: elif-one-tuple
{%- endif %}
{%- if (1, 2) == (1, 2): %}
    - d: colon-and-parens
{%- endif %}
{%- if [1, 2]|length == 2 %}
    - e: {{ [1, 2]|length }}
{%- endif %}
spaces:
  test.nop:
    - a: '{{ v }}'
    - b: '{{ v ~ ' x' }}'
{%- if v %}
    - c: 'text stays'
{%- endif %}
sorting:
  test.nop:
    - by_value: {{ ports|dictsort(false, 'value')|tojson }}
    - reverse_keys: {{ ports|dictsort(false, 'key', true)|tojson }}
    - case: {{ {'b': 1, 'B': 2, 'a': 3}|dictsort(true)|tojson }}
    - newest_first: {{ [3, 1, 2]|sort(true)|tojson }}
    - case_sensitive: {{ ['b', 'B', 'a']|sort(false, true)|tojson }}
    - by_attr: {{ users|sort(false, false, 'n')|map(attribute='id')|list|tojson }}
    - by_attr_rev: {{ users|sort(true, attribute='id')|map(attribute='n')|list|tojson }}
    - keywords: {{ ports|dictsort(by='value', reverse=true)|tojson }}
