{% set version = salt['pkg.version']('lowstate-no-such-package') %}
{% set versions = salt['pkg.version']('lowstate-no-such-a', 'lowstate-no-such-b') %}
{% set user = salt['user.info']('lowstate-no-such-user') %}
{% set group = salt['group.info']('lowstate-no-such-group') %}
{% set mine = salt['mine.get']('*', 'network.ip_addrs') %}
{% set file = salt['file.file_exists']('/nonexistent/lowstate/file') %}
{% set dir = salt['file.directory_exists']('/nonexistent/lowstate') %}
{% set installed = salt['pkg.list_pkgs']() %}
report:
  test.nop:
    - version: "{{ version }}"
    - versions: {{ versions|tojson }}
    - user: {{ user|tojson }}
    - group: {{ group|tojson }}
    - mine: {{ mine|tojson }}
    - file: {{ file }}
    - dir: {{ dir }}
    - has_nosuch: {{ 'lowstate-no-such-package' in installed }}
{% if not user %}
create-user:
  user.present:
    - name: lowstate-no-such-user
{% endif %}
