{%- set users = salt['pillar.get']('users', {}) %}
{%- for name, user in users | dictsort %}
user-{{ name }}:
  user.present:
    - name: {{ name }}
    - shell: {{ user.get('shell', '/bin/bash') }}
    - groups: {{ user.get('groups', []) | tojson }}
  {%- if user.get('ssh_key') %}
  ssh_auth.present:
    - user: {{ name }}
    - name: {{ user.ssh_key }}
    - require:
      - user: user-{{ name }}
  {%- endif %}
{%- endfor %}
