c-state:
  test.nop:
    - where: {{ sls }} {{ slspath }}
