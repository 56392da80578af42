base:
  '*':
    - sudoers
