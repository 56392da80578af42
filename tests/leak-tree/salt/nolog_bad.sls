# A no_log state whose compile fails on an argument: the diagnostic quotes
# its line, and the value must not show.
api-token-bad:
  file.managed:
    - no_log: True
    - names: NoLogFlag-77
