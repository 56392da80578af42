# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .package
  - .scripts
  - .config
  - .service
