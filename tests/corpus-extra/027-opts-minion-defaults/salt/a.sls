{% set keys = ['master', 'master_port', 'master_type', 'hash_type', 'ipv6', 'retry_dns', 'state_verbose',
               'state_output', 'file_ignore_glob', 'fileserver_backend', 'top_file_merging_strategy',
               'env_order', 'state_aggregate', 'startup_states', 'renderer', 'state_top', 'test'] %}
{% for k in keys %}
opt-{{ k }}:
  test.nop:
    - opts: {{ opts.get(k)|json }}
    - config: {{ salt['config.get'](k)|json }}
{% endfor %}
pillar-in-opts:
  test.nop:
    - role: {{ opts['pillar']['role'] }}
    - nested: {{ opts.pillar.nested|json }}
    - repr: {{ opts.pillar.nested|string|yaml_dquote }}
    - via-config: {{ salt['config.get']('pillar:nested:b')|json }}
    - has: {{ 'pillar' in opts }}
