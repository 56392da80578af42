{% from 'lib/m.jinja' import st %}
{{ st('x') }}
