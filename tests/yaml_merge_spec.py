"""The YAML merge key's own example (https://yaml.org/type/merge.html), for both loaders'
tests: its four last maps are equal. Spelled out with longer keys it failed, where PyYAML
got the one-letter keys right by luck (Python caches one-letter strings)."""

SPEC_EXAMPLE = """\
- &CENTER { x: 1, y: 2 }
- &LEFT { x: 0, y: 2 }
- &BIG { r: 10 }
- &SMALL { r: 1 }
- x: 1
  y: 2
  r: 10
  label: center/big
- << : *CENTER
  r: 10
  label: center/big
- << : [ *CENTER, *BIG ]
  label: center/big
- << : [ *BIG, *LEFT, *SMALL ]
  x: 1
  label: center/big
"""
SPELLED_OUT = SPEC_EXAMPLE.replace("x:", "across:").replace("y:", "down:").replace("r:", "radius:")
EXAMPLES = {"as-written": SPEC_EXAMPLE, "spelled-out": SPELLED_OUT}
