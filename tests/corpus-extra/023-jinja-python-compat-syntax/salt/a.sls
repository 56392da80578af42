{% for name in ['x', 'y']: %}
{% if name == 'x': %}
{{ name }}-if:
  test.nop
{% elif name == 'y': %}
{{ name }}-elif:
  test.nop
{% else: %}
never:
  test.nop
{% endif %}
{% endfor %}
{% for pkg in 'curl', 'git' %}
{{ pkg }}-tuple:
  test.nop
{% endfor %}
{% for pkg in 'vim', %}
{{ pkg }}-one:
  test.nop
{% endfor %}
{% for k, v in {'a': 1}.items(): %}
{{ k }}-items:
  test.nop:
    - v: {{ v }}
{% endfor %}
{% macro m(a): %}
{{ a }}-macro:
  test.nop
{% endmacro %}
{{ m("z") }}
{% set block: %}x{% endset %}
{% for p in 'a', 'b' if p != 'b' %}
{{ p }}-filtered:
  test.nop:
    - d: "{{ {'k': 'v:'}['k'] }}"
{% endfor %}
{% for x in []: %}{% else: %}
empty-else:
  test.nop
{% endfor %}
