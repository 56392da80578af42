a:
  test.nop:
    - f1: {{ salt['slsutil.file_exists']('files/t.txt') }}
    - f2: {{ salt['slsutil.file_exists']('files/nope.txt') }}
    - f3: {{ salt['slsutil.file_exists']('files') }}
    - f4: {{ salt['slsutil.dir_exists']('files') }}
    - f5: {{ salt['slsutil.dir_exists']('files/sub') }}
    - f6: {{ salt['slsutil.path_exists']('files/t.txt') }}
    - f7: {{ salt['slsutil.path_exists']('files/sub') }}
    - f8: {{ salt['slsutil.file_exists']('/files/t.txt') }}
    - f9: {{ salt['slsutil.file_exists']('files/t.txt', saltenv='prod') }}
    - f10: {{ salt['slsutil.path_exists']('nothing') }}
