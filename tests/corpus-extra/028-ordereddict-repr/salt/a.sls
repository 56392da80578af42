{% set app = pillar['app'] %}
repr:
  test.nop:
    - finalized: "{{ app }}"
    - string: {{ app|string|yaml_dquote }}
    - tilde: {{ (app ~ '') |yaml_dquote }}
    - empty: {{ app.opts|string|yaml_dquote }}
    - joined: {{ [app.deep, 1]|join(' ')|yaml_dquote }}
    - format: {{ '%s'|format(app.deep)|yaml_dquote }}
    - pformat: {{ app.deep|pprint|yaml_dquote }}
    - in-dict: {{ {'q': app.deep}|string|yaml_dquote }}
    - in-list: {{ [app.deep]|string|yaml_dquote }}
    - get: {{ salt['pillar.get']('app:deep')|string|yaml_dquote }}
    - yaml: {{ app.deep|yaml(False)|yaml_dquote }}
    - json: {{ app.deep|json|yaml_dquote }}
    - dict-of: {{ dict(app.deep)|string|yaml_dquote }}
