include:
  - .sub
a:
  test.nop:
    - name: "{{ sls }}|{{ slspath }}|{{ tpldir }}|{{ tplfile }}|{{ slsdotpath }}|{{ sls_path }}"
    - greeting: {{ pillar.greeting }}
