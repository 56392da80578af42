{% set disks = [{'dev': 'sda', 'size': 100}, {'dev': 'sdb'}] %}
disk-total:
  test.nop:
    - total: {{ disks|sum(attribute='size') }}
