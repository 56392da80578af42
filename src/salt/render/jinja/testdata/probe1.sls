{%- set d = {'a': 'x\ny', 'b': "it's", 't': 'a\tb', 'u': 'é', 'q': 'say "hi"\n'} %}
1: {{ d }}
2: {{ [d] }}
3: {{ d|string }}
4: {{ 'a' ~ d }}
5: {{ {'k': [1.0, 1e-7, 1e16, 2**70, 0.1 + 0.2]} }}
6: {{ '%s|%d|%5.2f|%r' % ('x', 3, 2.5, 'q') }}
7: {{ '%s' % None }} {{ '%s' % [1, 'a'] }} {{ '%s' % {'a': 1} }} {{ '%(a)s-%(b)s' % {'a': 1, 'b': None} }}
8: {{ 'x/y/z'.rsplit('/', 1) }} {{ 'a.b.c'.rpartition('.') }} {{ 'abc'.partition('x') }}
9: {{ (1, 'a') }} {{ ('a',) }}
10: {{ range(3)|list }} {{ none is iterable }} {{ 1 is number }} {{ true is number }} {{ {} is sequence }} {{ 'a' is iterable }}
11: {{ '  a  b '.split() }} {{ 'a,b,,c'.split(',') }} {{ ' a b c '.rsplit(None, 1) }}
12: {{ [3,1,2]|sort }} {{ {'b':1,'a':2}|dictsort }} {{ 'ab'|list }}
13: {{ 1.5|int }} {{ '3'|float }} {{ 10/2 }} {{ 7//2 }} {{ 7 % 3 }} {{ 2 ** 0.5 }}
14: {{ {'a': {'b': 'x\ny'}} }} {{ [{'b': 'x\ny'}] }} {{ ['x\ny'] }}
15: {{ {'a': None, 'b': [1]}|tojson }} {{ "é<&'>"|tojson }}
16: {{ [1,2]|join(',') }} {{ [1.0, None, True]|join(',') }} {{ 'x' * 3 }} {{ 'sub' * true }}
17: {{ {1: 'a', None: 'b', 2.5: 'c'} }}
18: {{ 'ab'.center(7, '*') }} {{ '42'.zfill(5) }} {{ 'abc'.ljust(5) }}|
19: {{ 1e100 }} {{ -0.0 }} {{ 1/3 }} {{ 1e15 }} {{ 123456789012345678.0 }}
20: {{ 'a\nb\n\nc'|indent(2) }}
21: {{ "xxx"|replace("x", "y", 2) }} {{ [1,[2]]|string }} {{ {'a': [1,2]}|list }}
22: {{ 'a' ~ None ~ True ~ 1.0 ~ [1] }}
23: {{ {'a':1} == {'a':1} }} {{ [1] == [1] }} {{ 1 == 1.0 }} {{ '1' == 1 }}
24: {{ 'abc'[1:] }} {{ [1,2,3][::-1] }} {{ 'abc'[-1] }}
25: {{ 'x' if 1 }}|{{ [] or 'f' }}|{{ None|default('d') }}|{{ None|default('d', true) }}
26: {{ '{} and {}'.format('a', 1) }} {{ '{0:>3}'.format(7) }}
27: {{ 'é'|upper }} {{ 'aBc'|title }} {{ 'a b'|capitalize }}
29: {{ 'a-b'.split('-')|last }} {{ [1, 2]|first }} {{ [4, 5]|max }} {{ [[1], [2]]|sum(start=[]) }}
30: {{ "%-5s|%05.1f|%x|%o|%e" % ('ab', 3.14159, 255, 8, 12345.678) }}
