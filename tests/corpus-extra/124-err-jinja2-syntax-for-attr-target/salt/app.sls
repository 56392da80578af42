{% for a.b in [1] %}{% endfor %}
x:
  test.nop: []
