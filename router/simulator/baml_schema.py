"""BAML's output-format block, read as the JSON schema of the answer it asks for.

BAML (baml-py 0.226.3) writes a typed function's return type into its prompt with
`{{ ctx.output_format }}`: one of its prefixes ("Answer in JSON using this schema:", "Answer
with a JSON Array using this schema:", "Answer with any of the categories:", "Answer as an
int"...) and the type in its own notation, e.g. "{\\n  title: string,\\n  lines: string[],\\n}",
"'positive' or 'negative'", "string or null", "map<string, int>" (the classifier's
`classifier.baml` tells the prefixes' sources). It parses the reply against that type. The
simulator knew LangChain's format instructions only (`format_instructions`), answered prose,
and every typed BAML function failed with BamlValidationError in demo mode (found in a live
review). So the block is read into a JSON schema (`baml_schema`) and answered as any schema
the prompt asks for (`prompted`). A name BAML hoists out of the schema (a recursive class's)
reads as a string; a custom `prefix=` is not recognised.
"""

from __future__ import annotations

import re
from typing import Any

from classifier.baml import format_block

# The prefixes whose words are the type: a primitive's, an enum's (its values follow, "- A")
_PRIMITIVE = re.compile(r"Answer as an? (int|float|bool)\b")
_CATEGORIES = "Answer with any of the categories:"
_TOKEN = re.compile(r"""\[\]|[{}\[\](),:<>]|'[^'\n]*'|"[^"\n]*"|-?\d+(?:\.\d+)?|[\w.-]+""")
_COMMENT = re.compile(r"^[ \t]*//.*$", re.M)
_PRIMITIVES: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "null": {"type": "null"},
}
_DEPTH = 32  # nesting read at most; deeper reads as a string


def baml_schema(text: str) -> dict[str, Any] | None:
    """The JSON schema of the answer BAML's last output-format block in `text` asks for, or
    None where it holds none (or one this reader cannot read). The block is found as the
    classifier finds it (`classifier.baml.format_block`), so the two read one block alike."""
    block = format_block(text)
    if block is None:
        return None
    if primitive := _PRIMITIVE.match(text, block.start):
        return _PRIMITIVES[primitive.group(1)]
    if text.startswith(_CATEGORIES, block.start):
        values = re.findall(r"^- ([^:\n]+)", block.schema, re.M)
        return {"enum": [v.strip() for v in values]} if values else None
    tokens = _TOKEN.findall(_COMMENT.sub("", block.schema))
    try:
        schema, _ = _union(tokens, 0, 0)
    except (IndexError, ValueError):
        return None
    return schema


def _union(tokens: list[str], at: int, depth: int) -> tuple[dict[str, Any], int]:
    """A type and its alternatives ("A or B or null"), and where it ends."""
    options = []
    while True:
        option, at = _postfix(tokens, at, depth)
        options.append(option)
        if at >= len(tokens) or tokens[at] != "or":
            break
        at += 1
    if len(options) == 1:
        return options[0], at
    values = [o["const"] for o in options if "const" in o]
    if len(values) == len(options):  # 'a' or 'b': an enum's values written inline
        return {"enum": values}, at
    return {"anyOf": options}, at


def _postfix(tokens: list[str], at: int, depth: int) -> tuple[dict[str, Any], int]:
    """A type and its `[]`s, each an array of it."""
    schema, at = _primary(tokens, at, depth)
    while at < len(tokens) and tokens[at] == "[]":
        schema, at = {"type": "array", "items": schema}, at + 1
    return schema, at


def _primary(tokens: list[str], at: int, depth: int) -> tuple[dict[str, Any], int]:
    """One type: an object, an array in brackets, a type in parentheses, a map, a literal, a
    primitive, or a hoisted name (read as a string)."""
    token = tokens[at]
    if depth > _DEPTH:
        raise ValueError("too deep")
    if token == "{":
        return _object(tokens, at + 1, depth + 1)
    if token in ("[", "("):
        inner, at = _union(tokens, at + 1, depth + 1)
        closing = "]" if token == "[" else ")"
        if tokens[at] != closing:
            raise ValueError("unclosed")
        return ({"type": "array", "items": inner} if token == "[" else inner), at + 1
    if token == "map" and tokens[at + 1] == "<":
        _, at = _union(tokens, at + 2, depth + 1)
        if tokens[at] != ",":
            raise ValueError("map")
        value, at = _union(tokens, at + 1, depth + 1)
        return {"type": "object", "additionalProperties": value}, at + 1
    if token[0] in "'\"":
        return {"const": token[1:-1]}, at + 1
    if token[0].isdigit() or token[0] == "-":
        return {"const": float(token) if "." in token else int(token)}, at + 1
    if token in ("true", "false"):
        return {"const": token == "true"}, at + 1
    return _PRIMITIVES.get(token, {"type": "string"}), at + 1


def _object(tokens: list[str], at: int, depth: int) -> tuple[dict[str, Any], int]:
    """An object's fields after its opening brace ("name: type," each), up to its closing
    one; a field that may be null is not required."""
    properties: dict[str, Any] = {}
    required = []
    while tokens[at] != "}":
        name = tokens[at].strip("\"'")
        if tokens[at + 1] != ":":
            raise ValueError("field")
        schema, at = _union(tokens, at + 2, depth)
        properties[name] = schema
        if not any(o.get("type") == "null" for o in schema.get("anyOf", ())):
            required.append(name)
        if tokens[at] == ",":
            at += 1
    return {"type": "object", "properties": properties, "required": required}, at + 1
