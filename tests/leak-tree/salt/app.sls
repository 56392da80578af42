/etc/app.conf:
  file.managed:
    - contents: "password={{ pillar.db.password }}"
/srv/data:
  file.directory:
    - recurse: "{{ pillar['db']['password'] }}"
api-token:
  file.managed:
    - name: /etc/api-token
    - contents: NoLogValue-42
    - makedirs: NoLogFlag-77
    - no_log: True
