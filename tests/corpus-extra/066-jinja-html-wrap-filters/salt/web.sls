{%- set attrs = {'class': 'nav main', 'id': 'top', 'hidden': none, 'data-n': 3, 'title': 'Tom & "Jerry"'} %}
{%- set motd = 'Welcome to the well-known host; please read the co-operative usage policy -- and be nice.' %}
escape:
  test.nop:
    - text: {{ '<a href="x">Tom & Jerry\'s</a>'|forceescape|tojson }}
    - safe: {{ ('<b>bold</b>'|safe)|forceescape|tojson }}
    - twice: {{ ('a & b'|forceescape|forceescape)|tojson }}
    - number: {{ 42|forceescape|tojson }}
    - mapping: {{ {'k': '<v>'}|forceescape|tojson }}
    - printed: "{{ '<x>'|forceescape }}"
attributes:
  test.nop:
    - default: {{ attrs|xmlattr|tojson }}
    - nospace: {{ attrs|xmlattr(false)|tojson }}
    - keyword: {{ {'a': true, 'b': [1, 'x']}|xmlattr(autospace=false)|tojson }}
    - safe_value: {{ {'onclick': 'go("<")'|safe}|xmlattr|tojson }}
    - empty: {{ {'only': none}|xmlattr|tojson }}
    - tag: '<div{{ {'class': 'box', 'lang': 'en'}|xmlattr }}>'
wrap:
  test.nop:
    - default: {{ (motd ~ ' ' ~ motd)|wordwrap|tojson }}
    - narrow: {{ motd|wordwrap(12)|tojson }}
    - no_hyphens: {{ motd|wordwrap(12, break_on_hyphens=false)|tojson }}
    - unbroken: {{ 'see https://example.com/a/very/long/path/indeed now'|wordwrap(10, false)|tojson }}
    - broken: {{ 'abcdefghijklmnopqrstuvwxyz'|wordwrap(8)|tojson }}
    - wrapstring: {{ 'one two three four five'|wordwrap(9, true, '<br>')|tojson }}
    - paragraphs: {{ 'first line here\n\n  indented second line\ttab'|wordwrap(10)|tojson }}
    - em_dash: {{ 'word--word--word and hy-phen-ated'|wordwrap(6)|tojson }}
    - long_hyphen: {{ 'ab1-cdefghij x'|wordwrap(6)|tojson }}
links:
  test.nop:
    - plain: {{ 'see http://example.com now'|urlize|tojson }}
    - www: {{ 'visit www.example.org/docs?page=2#top, or (https://salt.example.com/a_(b)).'|urlize|tojson }}
    - bare: {{ 'example.com and example.io'|urlize|tojson }}
    - mail: {{ 'mail ops@example.com or mailto:root@example.net.'|urlize|tojson }}
    - trimmed: {{ 'http://example.com/a/very/long/path'|urlize(15)|tojson }}
    - nofollow: {{ 'http://example.com'|urlize(none, true)|tojson }}
    - target_rel: {{ 'www.example.com'|urlize(target='_blank', rel='external  me')|tojson }}
    - schemes: {{ 'ftp://files.example.com tel:+123 tel:'|urlize(extra_schemes=['ftp://', 'tel:'])|tojson }}
    - addresses: {{ 'http://10.0.0.1:8080/x http://[::1]/ http://999.1.1.1'|urlize|tojson }}
    - escaped: {{ '<http://example.com?a=1&b=2>'|urlize|tojson }}
    - printed: "{{ 'at www.example.com' | urlize(trim_url_limit=6, nofollow=true) | replace('"', "'") }}"
