{%- set cfg = {'a': 1, 'b': [1, 2]} %}
a:
  file.managed:
    - contents: |
        {{ cfg | indent(8) }}
