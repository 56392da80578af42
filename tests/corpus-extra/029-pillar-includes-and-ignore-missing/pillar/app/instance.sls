{{ instance }}:
  name: {{ instance }}
  listen: {{ port }}
