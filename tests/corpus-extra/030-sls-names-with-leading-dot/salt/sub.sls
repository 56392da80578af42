sub:
  test.nop:
    - name: "{{ sls }}|{{ slspath }}|{{ tpldir }}"
