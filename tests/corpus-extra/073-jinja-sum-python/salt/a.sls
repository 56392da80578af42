{% set users = [{'name': 'a', 'quota': {'gb': 2}}, {'name': 'b', 'quota': {'gb': 3}}] %}
sum-cases:
  test.nop:
    - n: '{{ [1.5, 2, true]|sum }} {{ [true, true]|sum }} {{ [0.1, 0.2]|sum }}'
    - l: '{{ [[1], [2, 3]]|sum(start=[])|tojson }}'
    - a: '{{ users|sum(attribute="quota.gb") }} {{ [[1, 2], [3, 4]]|sum("1") }}'
    - s: '{{ [1, 2]|sum(start=10) }} {{ []|sum(start=none) }} {{ [9223372036854775807, 1]|sum }}'
