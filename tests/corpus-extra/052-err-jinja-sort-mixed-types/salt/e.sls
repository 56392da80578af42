{%- set l = ['b', 2, 1] %}{%- do l.sort() %}
e:
  test.nop:
    - v: {{ l|json }}
