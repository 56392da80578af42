# -*- coding: utf-8 -*-
# vim: ft=sls

include:
  - .service.clean
  - .config.clean
  - .package.clean
