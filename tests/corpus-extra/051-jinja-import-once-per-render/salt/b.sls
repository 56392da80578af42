{%- from 'lib/map.jinja' import lst %}
{%- from 'lib/map.jinja' import lst as ctx with context %}
{%- do ctx.append(5) %}
y:
  test.nop:
    - fresh_render: {{ lst | json }}
    - with_context: "{{ lst }} {{ ctx }}"
