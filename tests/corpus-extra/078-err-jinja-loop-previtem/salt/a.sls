{% for pkg in ['curl', 'git'] %}
after-{{ pkg }}:
  test.nop:
    - previous: {{ loop.previtem }}
{% endfor %}
