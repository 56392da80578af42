tabbed-continuation:
  test.nop:
    - single: 'first
	second'
    - double: "one
		two
	  three"
    - names:
      - 'a
	b'
