{% set pkg = 'linux-headers-' ~ grains['kernel']|lower %}
bytes:
  test.nop:
    - plain: {{ pkg.encode('utf8') }}
    - default: "{{ 'abc'.encode() }}"
    - accent: "{{ 'café'.encode('utf-8') }}"
    - latin: "{{ 'café'.encode('latin-1') }}"
    - quote: {{ ("it's".encode())|string|yaml_dquote }}
    - both: {{ ('a"b' ~ "'c").encode()|string|yaml_dquote }}
    - tab: {{ 'a\tb\\'.encode()|string|yaml_dquote }}
    - back: {{ 'café'.encode('utf8').decode('utf8') }}
    - ascii-back: {{ 'abc'.encode('ascii').decode('ascii') }}
    - in-list: "{{ [pkg.encode('utf8')] }}"
    - length: {{ 'café'.encode('utf8')|length }}
