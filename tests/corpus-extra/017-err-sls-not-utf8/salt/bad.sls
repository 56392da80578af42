bad:
  test.show_notification:
    - text: café
