urlencode:
  test.nop:
    - text: {{ 'hello world/a?b=c&d~_.-'|urlencode|yaml_dquote }}
    - accent: {{ 'café à'|urlencode|yaml_dquote }}
    - number: {{ 42|urlencode|yaml_dquote }}
    - query: {{ {'q': 'hello world', 'x': 'a&b', 'n': 1, 'path': '/a b'}|urlencode|yaml_dquote }}
    - pairs: {{ [('q', 'hello world'), ('k', 'v/w')]|urlencode|yaml_dquote }}
    - list-pairs: {{ [['a', 1], ['b', none]]|urlencode|yaml_dquote }}
    - two-char: {{ ['ab', 'cd']|urlencode|yaml_dquote }}
