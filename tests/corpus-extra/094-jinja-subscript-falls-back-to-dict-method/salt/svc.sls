{#- prometheus-formula's service/clean.sls looks a method up by subscript #}
{%- set component = {'node_exporter': {'service': {'node_exporter': {'name': 'prometheus-node-exporter'}}},
                     'alertmanager': {'service': {}}} %}
{%- for name in ['node_exporter', 'alertmanager'] %}
{%-   set service_name = component[name]['service']['get'](name, {}).get('name', name) %}
{%-   set keys = component[name]['service']['keys']() | list %}
svc-{{ name }}:
  test.nop:
    - service_name: {{ service_name }}
    - keys: {{ keys | json }}
    - has_items: {{ component[name]['items'] is defined }}
    - missing: {{ component[name]['nosuch'] is defined }}
{%- endfor %}
