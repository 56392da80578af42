{%- set d = {'k': 'v', 'n': [1, 'é']} %}
x:
  test.nop:
    - a: {{ '{!r}/{!s}'.format('x', 1) | json }}
    - b: {{ '{}|{!r}|{}'.format('p', 'q', 'r') | json }}
    - c: {{ '{0!r:>6}|{1!s:<4}|{0}'.format('x', 2.5) | json }}
    - d: {{ '{n!r} {k!s}'.format(n=None, k=True) | json }}
    - e: {{ '{0[k]!r} {0[n]!r} {0[n]!a}'.format(d) | json }}
    - f: {{ '{!a}'.format('é') | json }}
    - g: {{ '{{}} {!r} {{x}}'.format(d) | json }}
    - h: {{ '{0.k!r}'.format(d) | json }}
