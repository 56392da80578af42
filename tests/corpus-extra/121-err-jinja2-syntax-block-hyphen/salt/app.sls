{% block a-b %}{% endblock %}
x:
  test.nop: []
