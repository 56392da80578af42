{% if worker_count is divisibleby 2 %}
workers-even:
  test.nop: []
{% endif %}
