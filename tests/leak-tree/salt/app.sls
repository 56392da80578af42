/etc/app.conf:
  file.managed:
    - contents: "password={{ pillar.db.password }}"
/srv/data:
  file.directory:
    - recurse: "{{ pillar['db']['password'] }}"
