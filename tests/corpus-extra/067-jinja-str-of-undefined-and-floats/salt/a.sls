{% set shown = [
  [missing]|string,
  {'a': missing, 'b': [missing, 1]}|string,
  (missing, 1)|string,
  [(missing, 2)]|string,
  (none, true, 1.5)|string,
  1e100|string,
  (1e100, -0.0, 1/3)|string,
  (10**20)|string,
  'x'.encode()|string,
  [1, missing]|length,
  ['a', none, 1, 2.5]|join('-'),
  {'k': 1, 'j': 2}|join(','),
  [1e20, 1.5, none, true]|join(','),
  [[1, 2], (3,)]|join(';'),
  range(3)|join(d='+'),
] %}
{% for s in shown %}
show-{{ loop.index }}:
  test.nop:
    - name: {{ s|tojson }}
{% endfor %}
