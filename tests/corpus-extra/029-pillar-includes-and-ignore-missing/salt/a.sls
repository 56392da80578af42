pillar:
  test.nop:
    - keys: {{ pillar.keys()|list|json }}
    - data: {{ pillar|json }}
    - include: {{ pillar.get('include', 'absent') }}
