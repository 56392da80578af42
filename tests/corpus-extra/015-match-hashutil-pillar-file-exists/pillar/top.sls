base:
  '*':
    - common
{% if salt['pillar.file_exists']('extra/site.sls') %}
    - extra.site
{% endif %}
{% if salt['pillar.file_exists']('extra/missing.sls') %}
    - extra.missing
{% endif %}
