{% raw %}
x:
  test.nop: []
