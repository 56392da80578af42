
include:
  - samba.server
  - samba.config
  - samba.client
  # samba.users
  # samba.winbind
  # samba.winbind-ad
