{% if %}
x:
  test.nop: []
{% endif %}
