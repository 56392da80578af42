include:
  - nginx
  - users

{%- set app = salt['pillar.get']('app', {'name': 'shop', 'port': 8080}) %}

app-code:
  git.latest:
    - name: https://git.example.com/{{ app.name }}.git
    - target: /srv/{{ app.name }}
    - user: deploy
    - require:
      - user: user-deploy

app-migrate:
  cmd.run:
    - name: /srv/{{ app.name }}/manage migrate
    - onchanges:
      - git: app-code

app-service:
  service.running:
    - name: {{ app.name }}
    - watch:
      - git: app-code
    - require:
      - sls: nginx
    - order: last
