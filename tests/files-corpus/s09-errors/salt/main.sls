undefined:
  file.managed:
    - name: /etc/e1
    - source: salt://files/undef.j2
    - template: jinja
ok-between:
  file.managed:
    - name: /etc/ok
    - contents: fine
syntax:
  file.managed:
    - name: /etc/e2
    - source: salt://files/syntax.j2
    - template: jinja
raise:
  file.managed:
    - name: /etc/e3
    - source: salt://files/raise.j2
    - template: jinja
context-list:
  file.managed:
    - name: /etc/e4
    - source: salt://files/ok.j2
    - template: jinja
    - context: [a, b]
relative-name:
  file.managed:
    - name: etc/e5
    - contents: x
unknown-engine:
  file.managed:
    - name: /etc/e6
    - source: salt://files/ok.j2
    - template: nosuch
source-and-contents:
  file.managed:
    - name: /etc/e7
    - source: salt://files/ok.j2
    - contents: x
two-contents:
  file.managed:
    - name: /etc/e8
    - contents: x
    - contents_grains: os
missing-pillar:
  file.managed:
    - name: /etc/e9
    - contents_pillar: no:such:key
empty-not-allowed:
  file.managed:
    - name: /etc/e10
    - contents: ''
    - allow_empty: False
attr-undefined:
  file.managed:
    - name: /etc/e11
    - source: salt://files/attr.j2
    - template: jinja
missing-import:
  file.managed:
    - name: /etc/e12
    - source: salt://files/imp.j2
    - template: jinja
defaults-list:
  file.managed:
    - name: /etc/e13
    - source: salt://files/ok.j2
    - template: jinja
    - defaults: [a]
