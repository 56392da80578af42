plain:
  inherited: {{ instance|default('none') }}
