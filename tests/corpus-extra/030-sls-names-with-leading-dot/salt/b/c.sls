c:
  test.nop:
    - name: "{{ sls }}|{{ slspath }}|{{ tpldir }}|{{ tplfile }}|{{ tpldot }}|{{ slscolonpath }}"
