{%- set l = [3, 1.5, 2] %}{%- do l.sort(reverse=true) %}
x:
  test.nop:
    - a: {{ [3, 1.5, 2, true, 0]|sort|json }}
    - b: {{ ['b', 'A', 'c', 'a']|sort|json }}
    - c: {{ ['b', 'A', 'c', 'a']|sort(case_sensitive=true)|json }}
    - d: {{ [[1, 'b'], [1, 'a'], [0, 'z'], [1]]|sort|json }}
    - e: {{ {'b': 1, 'A': 2, 'c': 0}|dictsort|json }}
    - f: {{ {'b': 1, 'A': 2, 'c': 0}|dictsort(by='value', reverse=true)|json }}
    - g: {{ [{'v': {'w': 2}}, {'v': {'w': 1}}]|sort(attribute='v.w')|json }}
    - h: {{ [{'a': 1, 'b': 'y'}, {'a': 1, 'b': 'x'}, {'a': 0, 'b': 'z'}]|sort(attribute='a,b')|json }}
    - i: {{ l|json }}
    - j: {{ ['b', 'a']|sort(reverse=true)|json }}
    - k: {{ [none]|sort|json }}
