a: 1
- b
