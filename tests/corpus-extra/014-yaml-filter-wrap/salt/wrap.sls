{%- import_yaml "defaults.yaml" as defaults %}
{%- set acls = [['local', 'all', 'all', 'peer'], ['host', 'all', 'all', '127.0.0.1/32', 'md5'], ['host', 'all', 'all', '::1/128', 'md5'], ['local', 'replication', 'all', 'peer']] %}
hba:
  test.nop:
    - acls: {{ acls | yaml }}
    - nested:
        deeper:
          list: {{ acls | yaml }}
    - quoted: "first line
  continued"
    - key: {{ defaults.key | json }}
