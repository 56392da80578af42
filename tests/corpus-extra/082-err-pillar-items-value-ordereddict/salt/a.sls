{% for k, v in pillar['app'].items() %}{% if k == 'sub' %}x:
  test.nop:
    - a: {{ v.nope }}
{% endif %}{% endfor %}
