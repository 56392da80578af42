{% import_yaml 'a.yaml' %}
x:
  test.nop: []
