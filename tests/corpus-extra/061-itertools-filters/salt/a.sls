{%- set hosts = ['web1', 'web2', 'db1'] %}
{%- for a, b in hosts|combinations(2) %}
link-{{ a }}-{{ b }}:
  test.nop:
    - pair: [{{ a }}, {{ b }}]
{%- endfor %}
{%- for pair in hosts|permutations(2) %}
route-{{ pair|join('-') }}:
  test.nop:
    - first: {{ pair[0] }}
{%- endfor %}
matrix:
  test.nop:
    - product: {{ [1, 2]|product(['a', 'b'])|list|json }}
    - repeat: {{ [0, 1]|product(repeat=3)|list|json }}
    - with_replacement: {{ 'ab'|combinations_with_replacement(2)|list|json }}
    - all_perms: {{ [1, 2, 3]|permutations|list|json }}
    - longest: {{ [1, 2, 3]|zip_longest(['x'])|list|json }}
    - filled: {{ [1, 2, 3]|zip_longest(['x'], fillvalue='-')|list|json }}
    - compress: {{ hosts|compress([true, false, 1])|list|json }}
    - none: {{ [1]|combinations(2)|list|json }}
    - zero: {{ [1, 2]|combinations(0)|list|json }}
    - keys: {{ {'a': 1, 'b': 2}|permutations|list|json }}
    - first: {{ (hosts|combinations(2)|first)|json }}
    - text: "{{ hosts|combinations(2)|list }}"
