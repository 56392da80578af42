{%- set c = cycler('odd', 'even') %}
{%- set one = cycler([1, 2]) %}
{%- for n in ['x', 'y', 'z'] %}
row-{{ n }}:
  test.nop:
    - class: {{ c.next() }}
{%- endfor %}
after:
  test.nop:
    - current: {{ c.current }}
    - pos: {{ c.pos }}
    - reset: {{ c.reset() }}
    - again: {{ c.next() }}
    - items: {{ c.items | list | json }}
    - one: {{ one.next() | json }}
    - one_again: {{ one.next() | json }}
