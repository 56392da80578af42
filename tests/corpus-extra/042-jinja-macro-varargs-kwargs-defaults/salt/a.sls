{%- from 'macros.jinja' import pkgs, opts %}
{%- macro m(a) -%}{{ a }}-{{ varargs | join(',') }}-{{ kwargs | dictsort | join(',') }}{%- endmacro %}
{%- macro nothing() -%}{{ varargs|length }}/{{ kwargs|length }}{%- endmacro %}
{%- macro both(a, b=2) -%}{{ a }} {{ b }} {{ varargs }} {{ kwargs }}{%- endmacro %}
{%- macro dflt(a, b=a * 2, c=b + 1, d='x') -%}{{ a }}-{{ b }}-{{ c }}-{{ d }}{%- endmacro %}
{%- macro wrap(title) -%}{{ title }}[{{ caller() ~ varargs|length }}]{%- endmacro %}
macros:
  test.nop:
    - a: "{{ m(1, 2, 3, z=4) }}"
    - b: "{{ m(1) }}"
    - c: "{{ nothing() }} {{ nothing(1, 2, x=3) }}"
    - d: "{{ both(1) }}"
    - e: "{{ both(1, 3, 5, k='v') }}"
    - f: "{{ both(b=7, a=0) }}"
    - g: "{{ dflt(3) }} {{ dflt(3, 1) }} {{ dflt(1, d='y') }}"
    - h: "{{ pkgs('vim', 'git', 'curl') }}"
    - i: "{{ opts('svc', port=80, enable=true) }}"
    - j: "{% call wrap('t') %}body{% endcall %}"
