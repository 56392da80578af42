c-str:
  file.managed:
    - name: /etc/c-str
    - contents: hello
c-multi:
  file.managed:
    - name: /etc/c-multi
    - contents: |
        line one
        line two
c-list:
  file.managed:
    - name: /etc/c-list
    - contents:
      - first
      - "second\nthird"
      - 42
c-nonl:
  file.managed:
    - name: /etc/c-nonl
    - contents: "no newline\n\n"
    - contents_newline: False
c-int:
  file.managed:
    - name: /etc/c-int
    - contents: 12345
c-pillar:
  file.managed:
    - name: /etc/c-pillar
    - contents_pillar: app:key
c-pillar-list:
  file.managed:
    - name: /etc/c-pillar-list
    - contents_pillar:
      - app:key
      - app:other
c-pillar-delim:
  file.managed:
    - name: /etc/c-pillar-delim
    - contents_pillar: app/dict
    - contents_delimiter: /
c-grains:
  file.managed:
    - name: /etc/c-grains
    - contents_grains: fqdn
c-grains-list:
  file.managed:
    - name: /etc/c-grains-list
    - contents_grains: roles
c-tmpl:
  file.managed:
    - name: /etc/c-tmpl
    - contents: "{% raw %}id={{ grains.id }} x={{ x }} env={{ saltenv }} {{ name is defined }}{% endraw %}"
    - template: jinja
    - defaults:
        x: 7
c-crlf:
  file.managed:
    - name: /etc/c-crlf
    - contents: "a\r\nb\rc"
