cfg:
  test.succeed_with_changes:
    - watch_in:
      - test: svc
    - listen_in:
      - test: notify
svc:
  test.succeed_without_changes: []
notify:
  test.succeed_without_changes: []
broken:
  test.fail_without_changes: []
fine:
  test.succeed_without_changes: []
rescue:
  test.succeed_with_changes:
    - onfail_any:
      - test: broken
      - test: fine
either:
  test.succeed_without_changes:
    - require_any:
      - test: broken
      - test: fine
gate:
  test.succeed_with_changes:
    - prereq:
      - test: deploy
deploy:
  test.succeed_with_changes:
    - require:
      - test: either
after:
  test.nop:
    - require:
      - test: broken
