escape-cases:
  test.nop:
    - q: {{ ("a'b\"c&<>"|e)|tojson }}
    - n: '{{ 1|e }} {{ none|escape }} {{ ("<"|safe)|e }} {{ ("<"|e)|e }}'
    - l: {{ (["<", "'"]|e)|tojson }}
    - r: {{ (['a'|safe, {'k': 'v'|safe}, {'a': 1}|tojson, '<'|e]|string)|tojson }}
