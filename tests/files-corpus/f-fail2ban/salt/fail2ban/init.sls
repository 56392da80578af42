# -*- coding: utf-8 -*-
# vim: ft=sls

include:
    - fail2ban.install
    - fail2ban.config
    - fail2ban.service
