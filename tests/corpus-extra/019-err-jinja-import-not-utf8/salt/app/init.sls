{% from "app/map.jinja" import settings with context %}
app-config:
  file.managed:
    - name: {{ settings.path }}
