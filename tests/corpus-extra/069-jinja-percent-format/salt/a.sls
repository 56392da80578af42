{% set pair = ('web', 8080) %}
{% set names = ['a', 'b'] %}
format-cases:
  test.nop:
    - spread: "{{ '%s-%s'|format('a', 'b') }}"
    - keywords: "{{ '%(role)s/%(port)d'|format(role='db', port=5432) }}"
    - operator_tuple: "{{ '%s:%d' % pair }}"
    - operator_single: "{{ 'names=%s' % names }}"
    - operator_mapping: "{{ '%(x)s' % {'x': 'y'} }}"
    - percent: "{{ '%d%%' % 50 }}"
    - repr: "{{ '%r'|format('q') }}"
    - nothing: "{{ 'plain'|format() }}"
    - stars: "[{{ '%*d'|format(5, 42) }}] [{{ '%-*s'|format(4, 'ab') }}] [{{ '%.*f' % (2, 3.14159) }}] [{{ '%*d' % (-4, 7) }}]"
