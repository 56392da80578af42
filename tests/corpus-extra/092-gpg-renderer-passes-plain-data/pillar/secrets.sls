#!yaml|gpg
db:
  user: app
  # a value that only looks like a PGP armour line, without its END marker
  note: '-----BEGIN PGP MESSAGE----- (placeholder)'
