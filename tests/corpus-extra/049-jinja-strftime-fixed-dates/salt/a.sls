x:
  test.nop:
    - a: "{{ 1700000000 | strftime('%Y-%m-%d %H:%M:%S %Z|%z|%f') }}"
    - b: "{{ '2024-01-02' | strftime('%d/%m/%Y %H:%M:%S %a %A %b %B %j %U %W %u %w %G %V %y %C %e %p %I') }}"
    - c: "{{ 1700000000.7 | strftime('%c|%x|%X|%D|%F|%T|%R|%r|%h|%k|%l|%P|%-d|%_m|%s|%f') }}"
    - d: "{{ '2024/01/02' | strftime }}"
    - e: "{{ '2024-01-02 13:04:05' | date_format('%c') }}"
    - f: "{{ '2024-01-02T1:2:3' | strftime(format='%c') }}"
    - g: "{{ ' 2024-1-2 13:04 ' | strftime('%c') }}"
    - h: "{{ '2024-01-02 13:04:05.25' | strftime('%c %f') }}"
    - i: "{{ '2024-02-31' | strftime }} {{ '2024-00-10' | strftime }} {{ '2024-01-00' | strftime }}"
    - j: "{{ '2024-01-02 23:59:60' | strftime('%c') }}"
    - k: "{{ -1.5 | strftime('%c %f') }} {{ 0 | strftime('%c') }}"
    - l: '{{ "2024-01-02" | strftime("%%|%Ey|%Od|%G-%g|%#b|%^a|%10Y|%05d|%-j") }}'
    - m: "{{ '2021-01-03' | strftime('%G-%V %U %W %g') }} {{ '2020-12-31' | strftime('%G-%V %j') }}"
    - n: "{{ '0001-01-01' | strftime('%c') }} {{ '9999-12-31 23:59:59' | strftime('%c') }}"
