http:
  file.managed:
    - name: /etc/r1
    - source: https://example.com/file.conf
    - source_hash: sha256=0000000000000000000000000000000000000000000000000000000000000000
s3:
  file.managed:
    - name: /etc/r2
    - source: s3://bucket/key
    - skip_verify: True
local:
  file.managed:
    - name: /etc/r3
    - source: /etc/hostname
fileurl:
  file.managed:
    - name: /etc/r4
    - source: file:///etc/hostname
list-salt-first:
  file.managed:
    - name: /etc/r5
    - source:
      - salt://x.txt
      - https://example.com/x
