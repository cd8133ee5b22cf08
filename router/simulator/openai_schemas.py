"""OpenAI's refusal of a function tool whose `parameters` are not JSON Schema: a `type`
that is none of JSON Schema's seven (`"str"`, the Python name, as llama-stack 0.2.12's
`@client_tool` writes it), anywhere in the schema.

OpenAI checks a function's schema against JSON Schema's own metaschema and quotes the
check's words after the function's name, with no `In context=` (that prefix is its
Structured Outputs checks'): "Invalid schema for function 'x': [] is not of type 'object',
'boolean'." (`invalid_function_parameters`, param `tools[2].function.parameters`,
FoundationAgents/OpenManus#1162), "... 'ai-sfn': None is not of type 'array'."
(yomorun/yomo#860), `tools[1].parameters` on Responses (kevinwatt/mysql-mcp#5). Of that
check only the `type` keyword is refused here: the metaschema's `anyOf` of a type name or
an array of distinct ones. Its sentence, "'str' is not valid under any of the given
schemas" (the value as Python shows it), is inferred, not captured: it is the `jsonschema`
library's message for a failed `anyOf`, in the format OpenAI's quoted messages for other
schema errors share (the sentences above are `jsonschema`'s `type` message); no reply of
OpenAI's to an unknown `type` was seen, and the tests hold the status, code, param and the
function's name and the bad type, not the sentence. Where several types are wrong, the one
refused first is the walk's, in the schema's own order.

vLLM takes any object as a schema (`tests/simulator/test_simulator_tool_schemas.py`): this
is the cloud profile's alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from router.simulator.openai_shape import refusal

TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
# The metaschema's keywords whose value is a schema, an array of them, or names mapped to them
ONE = (
    *("additionalProperties", "items", "contains", "propertyNames", "not", "if", "then"),
    *("else", "additionalItems", "unevaluatedItems", "unevaluatedProperties"),
)
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def refuse_schemas(tools: Any, where: str) -> None:
    """Raise OpenAI's 400 for the first function tool in `tools` whose schema has a `type`
    JSON Schema does not know; `where` is `"function."` on chat (the schema under the
    tool's `function`), `""` on Responses."""
    if not isinstance(tools, list):
        return
    for index, tool in enumerate(tools):
        function = _function(tool, where)
        schema = function.get("parameters")
        if not isinstance(schema, dict):
            continue  # a schema not an object is refused elsewhere, a missing one is none
        for wrong in _wrong_types(schema):
            # `jsonschema`'s wording, inferred rather than seen from OpenAI (module docstring)
            message = (
                f"Invalid schema for function '{function.get('name')}': {wrong!r} is not"
                " valid under any of the given schemas."
            )
            param = f"tools[{index}].{where}parameters"
            raise refusal(message, param, "invalid_function_parameters")


def _function(tool: Any, where: str) -> dict[str, Any]:
    """A function tool's name and schema holder: the tool itself on Responses, its
    `function` on chat; `{}` for any other tool."""
    if not isinstance(tool, dict) or tool.get("type") != "function":
        return {}
    holder = tool.get("function") if where else tool
    return holder if isinstance(holder, dict) else {}


def _wrong_types(schema: dict[str, Any]) -> Iterator[Any]:
    """Each `type` value in `schema` and its subschemas that names no JSON Schema type, in
    the schema's own order (each schema before its subschemas, those in their order).

    Walked with a stack of its own: a recursion raised `RecursionError` on a schema nested
    1000 deep (JSON parsers take 1024), and the cloud profile answered 500 "simulator bug"
    (found in review)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if node.get("type") is not None and not _known(node["type"]):  # null: not asked
            yield node["type"]
        inner = [sub for key, value in node.items() for sub in _subschemas(key, value)]
        stack.extend(sub for sub in reversed(inner) if isinstance(sub, dict))


def _known(value: Any) -> bool:
    """A type name, or a non-empty array of distinct ones: the metaschema's `type`."""
    if isinstance(value, str):
        return value in TYPES
    if not isinstance(value, list) or not value:
        return False
    names = [name for name in value if isinstance(name, str) and name in TYPES]
    return len(names) == len(value) == len(set(names))


def _subschemas(keyword: str, value: Any) -> list[Any]:
    if keyword in ONE:
        return value if keyword == "items" and isinstance(value, list) else [value]
    if keyword in MANY and isinstance(value, list):
        return value
    if keyword in NAMED and isinstance(value, dict):
        return list(value.values())
    return []
