{% macro down(n) %}{% if n > 0 %}{{ down(n - 1) }}{% else %}bottom{% endif %}{% endmacro %}
deep-macro:
  test.show_notification:
    - text: {{ down(150) }}
