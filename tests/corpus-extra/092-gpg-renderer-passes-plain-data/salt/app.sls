#!jinja|yaml|gpg
app_user:
  test.nop:
    - user: {{ pillar.db.user }}
    - note: {{ pillar.db.note | json }}
    - count: 2
