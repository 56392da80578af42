undefined-tests:
  test.nop:
    - kinds: '{{ x is defined }} {{ x is none }} {{ x is string }} {{ x is mapping }} {{ x is sequence }} {{ x is number }}'
    - callable: '{{ salt["nosuch.function"] is callable }} {{ nope is callable }} {{ salt["test.ping"] is callable }}'
