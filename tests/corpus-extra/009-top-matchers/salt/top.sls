base:
  'I@tier:front and G@os:Debian':
    - m1
  'osrelease:1[0-9]':
    - match: grain_pcre
    - m2
  'db01,web01.example.com':
    - match: list
    - m3
  '10.1.0.0/16':
    - match: ipcidr
    - m4
  'webs':
    - match: nodegroup
    - m5
  'web0[0-9]':
    - match: pcre
    - m6
  'flags:beta:True':
    - match: pillar
    - m7
  'G@roles:nope or L@x,y':
    - m8
  'not G@kernel:Windows and E@^web':
    - m9
