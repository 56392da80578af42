{% set user = 'deploy' %}
home:
  file.directory:
    - name: {{ '/home/deploy'|format(user) }}
