motd:
  file.managed:
    - name: /etc/motd
    - source: salt://files/motd.j2
    - template: jinja
    - user: root
    - group: adm
    - mode: 644
    - attrs: i
    - extra_arg: hello
    - another: [1, 2]
    - defaults:
        x: 1
        y: from-defaults
        user: dflt-user
    - context:
        x: 2
        nested: {a: 1, b: [x, y]}
plain_vars:
  file.managed:
    - name: /etc/plain
    - source: salt://files/vars.j2
    - template: jinja
mode_string:
  file.managed:
    - name: /etc/mode
    - source: salt://files/vars.j2
    - template: jinja
    - mode: '0600'
    - owner: alice
mode_keep:
  file.managed:
    - name: /etc/modekeep
    - source: salt://files/vars.j2
    - template: jinja
    - mode: keep
    - context:
        name: overridden
        saltenv: other
