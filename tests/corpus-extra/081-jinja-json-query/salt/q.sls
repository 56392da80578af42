{%- set data = {'services': [
      {'name': 'http', 'host': '1.2.3.4', 'port': 80},
      {'name': 'smtp', 'host': '1.2.3.5', 'port': 25},
      {'name': 'ssh', 'host': '1.2.3.6', 'port': 22}],
    'zeta': {'b': 1, 'a': 2, 'c': [3, 1, 2]},
    'flag': true, 'none': none, 'pi': 3.5} %}
path:
  test.nop:
    - r: {{ {'a': {'c': 2}} | json_query('a.c') }}
    - ports: {{ data | json_query('services[].port') | json }}
    - filtered: {{ data | json_query('services[?port > `25`].name') | json }}
    - slice: {{ data | json_query('services[1:].host') | json }}
    - first: {{ data | json_query('services[0]') | json }}
    - keep_order: {{ data | json_query('zeta') | json }}
    - whole: {{ data | json_query('@') | json }}
    - missing: {{ data | json_query('nope.x') }}
    - missing_repr: "{{ data | json_query('nope') }}"
    - multilist: {{ data | json_query('services[].[name, port]') | json }}
    - multihash: {{ data | json_query('services[].{port: port, n: name}') | json }}
    - length: {{ data | json_query('length(services)') }}
    - sorted: {{ data | json_query('sort(zeta.c)') | json }}
    - maxby: {{ data | json_query('max_by(services, &port).name') }}
    - keys: {{ data | json_query('keys(zeta)') | json }}
    - flag: {{ data | json_query('flag') }}
    - pi: {{ data | json_query('pi') }}
    - pipe: {{ data | json_query('services[*].name | [0]') }}
    - contains: {{ data | json_query("contains(services[].name, 'ssh')") }}
    - joined: {{ data | json_query("join(', ', services[].name)") }}
    - repr_list: "{{ data | json_query('services[].name') }}"
    - repr_map: "{{ data | json_query('zeta') }}"
