redirect:
  test.nop:
    - args: [echo, hi, >, /tmp/out]
