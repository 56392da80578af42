d:
  file.managed:
    - contents: |
        {{ 'x\ny'|indent(8) }}
        {{ ('p\nq'|safe)|indent(8, true) }}
