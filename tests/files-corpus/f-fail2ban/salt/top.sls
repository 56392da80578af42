base:
  '*':
    - fail2ban
    - fail2ban.config
