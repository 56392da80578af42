/srv/app:
  file.recurse:
    - source: salt://app/conf
    - template: jinja
    - file_mode: 640
    - context:
        port: 8080
/srv/plain:
  file.recurse:
    - source: salt://app/plain
/srv/filtered:
  file.recurse:
    - source: salt://app/conf
    - include_pat: '*.conf'
    - exclude_pat: E@skip
    - template: jinja
    - defaults:
        port: 1
/srv/shallow:
  file.recurse:
    - source: salt://app/plain/
    - maxdepth: 0
/srv/missing:
  file.recurse:
    - source: salt://app/nope
