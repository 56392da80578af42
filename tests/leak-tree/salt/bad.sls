x:
  file.managed:
    - name: /tmp/x
    - require:
      - file: "{{ pillar.db.password }}"
