first-missing:
  file.managed:
    - name: /etc/sl1
    - source:
      - salt://files/nope
      - salt://files/b.txt
      - salt://files/a.txt
dict-entries:
  file.managed:
    - name: /etc/sl2
    - source:
      - salt://files/nope: sha256=abc
      - salt://files/a.txt: sha256=def
    - template: jinja
grain-named:
  file.managed:
    - name: /etc/sl3
    - source:
      - salt://files/{{ grains.id }}.txt
      - salt://files/default.txt
other-env:
  file.managed:
    - name: /etc/sl4
    - source: salt://dev.txt?saltenv=dev
none-found:
  file.managed:
    - name: /etc/sl5
    - source:
      - salt://files/nope1
      - salt://files/nope2
missing-single:
  file.managed:
    - name: /etc/sl6
    - source: salt://files/missing.txt
triple-slash:
  file.managed:
    - name: /etc/sl7
    - source: salt:///files/a.txt
