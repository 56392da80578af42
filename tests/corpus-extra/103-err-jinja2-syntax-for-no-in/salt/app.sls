{% for i %}
{% endfor %}
x:
  test.nop: []
