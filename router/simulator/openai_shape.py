"""The shapes of the request fields OpenAI checks, and the walk that refuses a value not of
its shape as OpenAI does: in its error body, words and code (`check`).

A shape is a node of one small language: a JSON kind, a closed set of strings, an object's
fields, an array, a message's content (a string or parts), an object its `type` names, an
array of which only the items of some types are checked, a choice of a string or such an
object, metadata. Which field of a request takes which shape is the tables'
(`router.simulator.openai_refusals`). Kept apart from them: the tables grow with OpenAI's
API and the `openai` SDK's types, the walk and its words only with a new kind of refusal.

The codes and words are those of OpenAI's 400s as its clients quote them: "Invalid value:
'other'. Supported values are: 'search', 'open_page', and 'find_in_page'." (`invalid_value`,
openai/codex#7117); "Invalid type for 'tools[0].parameters': expected an object, but got
a boolean instead." (`invalid_type`); "Missing required parameter: 'tools[0].type'."
(`missing_required_parameter`); "Invalid 'tools[0].name': empty string. ..."
(`empty_string`, diegosouzapw/OmniRoute#707); "Invalid 'metadata': too many properties.
..." (`object_above_max_properties`, BerriAI/litellm#4257); a metadata value's
`string_above_max_length` (spiceai/docs#928); a property name too long,
`property_name_above_max_length`, named `<object>.<name>` (openai/codex#20688); "Invalid
type for 'max_tokens': expected an integer, but got a string instead." (diffbot/
code-gpt-docs#273), "... 'temperature': expected a decimal ...", "... 'tools': expected an
array of objects ..." on chat, "... 'tools': expected an array of tools ..." and
"... 'instructions': expected a string ..." on Responses, as their clients quote them;
"Invalid type for 'messages[1].content': expected one of a string or array of objects, but
got an object instead." (pydantic/pydantic-ai#2653); "Invalid 'messages': empty array.
Expected an array with minimum length 1, but got an empty array instead." (`empty_array`,
CopilotKit/CopilotKit#529), in which words it refuses `tools: []` on chat too (dnakov/
anon-kode#20; vllm-project/vllm#39780 names the code), though not on Responses, where the
OpenAI Agents SDK sends it for an agent without tools (`tests/fixtures/openai-agents-*`),
and a message's `content: []` ("Invalid 'messages[4].content': empty array. ...",
langchain-ai/langchainjs#11416, n8n-io/n8n#38526: an assistant's turn of tool calls alone);
"Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0
instead." (`integer_below_min_value`, it-at-m/mucgpt#608), and of `max_output_tokens`
">= 16, but got 10" (vectorize-io/hindsight#58); "Invalid 'n': integer above maximum value.
Expected a value <= 128, ..." (`integer_above_max_value`, its API spec's bound). A JSON null
is a field not asked, as OpenAI takes it of an optional field; a metadata value is a string.
A chat message without a field its role requires OpenAI refuses in the words of an older
check, with a null code and the index after a dot: "Missing parameter 'tool_call_id':
messages with role 'tool' must have a 'tool_call_id'." (`messages.[3].tool_call_id`,
langchain-ai/langchain#22600, MadcowD/ell#325).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from router.simulator.errors import ApiError


@dataclass(frozen=True)
class Kind:
    """A value of one JSON kind (`said`: OpenAI's words for it); `filled`: a string that
    may not be empty; `least` and `most`: the least and the most an integer may be."""

    said: str
    kinds: tuple[type, ...]
    filled: bool = False
    least: int | None = None
    most: int | None = None


@dataclass(frozen=True)
class OneOf:
    """A string of a closed set."""

    values: tuple[str, ...]


@dataclass(frozen=True)
class Fields:
    """An object: the fields checked, in OpenAI's order, and those it requires."""

    fields: Mapping[str, Node] = field(default_factory=dict)
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListOf:
    """An array of `item`s; `filled`: one that may not be empty."""

    item: Node
    said: str = "an array"
    filled: bool = False


@dataclass(frozen=True)
class Parts:
    """A chat message's content: a string, or an array of parts that may not be empty
    (`said`: OpenAI's words for the two). The parts themselves are the backend's."""

    said: str = "one of a string or array of objects"


@dataclass(frozen=True)
class Typed:
    """An object its `type` names: each type's fields; `opaque`, the types OpenAI knows
    whose fields are not checked here (hosted tools). Any other type is refused."""

    types: Mapping[str, Fields]
    opaque: tuple[str, ...] = ()


@dataclass(frozen=True)
class Items:
    """An array of items of many kinds (Responses' `input`), of which only those whose
    `type` names here are checked: a message need not name its type, and the other items'
    fields are not checked here. Anything but an array (`input`'s string) is let be."""

    types: Mapping[str, Fields]


@dataclass(frozen=True)
class Choice:
    """A string of a closed set, or an object its `type` names (`tool_choice`)."""

    strings: OneOf
    objects: Typed


@dataclass(frozen=True)
class Metadata:
    """OpenAI's metadata: at most `keys` string keys of `key_chars`, string values of
    `value_chars` (its documented bounds)."""

    keys: int = 16
    key_chars: int = 64
    value_chars: int = 512


Node = Kind | OneOf | Fields | ListOf | Parts | Typed | Items | Choice | Metadata


def refusal(message: str, param: str | None, code: str | None) -> ApiError:
    """OpenAI's 400 body: its `invalid_request_error`, the field at fault (null for chat's
    unknown argument, `unknown_arguments`) and its code (null in its older checks of a
    conversation, `refuse_role_fields`)."""
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    raw = orjson.dumps({"error": error})
    return ApiError(400, "bad_request", message, param, raw=raw)


def _missing(param: str) -> ApiError:
    return refusal(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")


def _got(value: Any) -> str:
    """A JSON value's kind in OpenAI's words ("but got a boolean instead")."""
    if value is None:
        return "null"
    for kind, said in _SAID:
        if isinstance(value, kind):
            return said
    return "an object"


_SAID: tuple[tuple[type, str], ...] = (
    *((bool, "a boolean"), (int, "an integer"), (float, "a decimal number")),
    *((str, "a string"), (list, "an array"), (dict, "an object")),
)


def wrong_kind(value: Any, param: str, expected: str) -> ApiError:
    message = f"Invalid type for '{param}': expected {expected}, but got {_got(value)} instead."
    return refusal(message, param, "invalid_type")


def _listed(values: tuple[str, ...], last: str) -> str:
    """'a', 'b', and 'c' (or 'a' and 'b'), as OpenAI lists values."""
    quoted = [f"'{value}'" for value in values]
    if len(quoted) < 3:
        return f" {last} ".join(quoted)
    return ", ".join(quoted[:-1]) + f", {last} {quoted[-1]}"


def _is(value: Any, kind: Kind) -> bool:
    """JSON tells a boolean from a number: a bool is no int or float here."""
    if isinstance(value, bool) and bool not in kind.kinds and object not in kind.kinds:
        return False
    return isinstance(value, kind.kinds)


def check(value: Any, node: Node, param: str) -> None:
    """Refuse `value`, found at `param` ("" for a request's body), where `node` says OpenAI
    does: raise its 400 for the first part of `value` not of its shape."""
    if isinstance(node, Kind):
        _kind(value, node, param)
    elif isinstance(node, OneOf):
        _one_of(value, node.values, param)
    elif isinstance(node, Fields):
        _fields(value, node, param)
    elif isinstance(node, ListOf):
        _list_of(value, node, param)
    elif isinstance(node, Parts):
        _parts(value, node, param)
    elif isinstance(node, Typed):
        _typed(value, node, param)
    elif isinstance(node, Items):
        _items(value, node, param)
    elif isinstance(node, Choice):
        if isinstance(value, str):
            _one_of(value, node.strings.values, param)
        elif isinstance(value, dict):
            _typed(value, node.objects, param)
        else:
            expected = f"one of an object or {_listed(node.strings.values, 'or')}"
            raise wrong_kind(value, param, expected)
    else:
        _metadata(value, node, param)


def _list_of(value: Any, node: ListOf, param: str) -> None:
    if not isinstance(value, list):
        raise wrong_kind(value, param, node.said)
    if node.filled and not value:
        raise _empty_array(param)
    for index, item in enumerate(value):
        check(item, node.item, f"{param}[{index}]")


def _parts(value: Any, node: Parts, param: str) -> None:
    """A string, or an array not empty (its parts not checked here)."""
    if not isinstance(value, str | list):
        raise wrong_kind(value, param, node.said)
    if value == []:
        raise _empty_array(param)


def _empty_array(param: str) -> ApiError:
    message = (
        f"Invalid '{param}': empty array. Expected an array with minimum length 1, but got an"
        " empty array instead."
    )
    return refusal(message, param, "empty_array")


def _kind(value: Any, node: Kind, param: str) -> None:
    """A value of `node`'s kind; a string not empty if `filled`, an integer at least its
    `least` and at most its `most`."""
    if not _is(value, node):
        raise wrong_kind(value, param, node.said)
    if node.filled and value == "":
        message = (
            f"Invalid '{param}': empty string. Expected a string with minimum length 1,"
            " but got an empty string instead."
        )
        raise refusal(message, param, "empty_string")
    if node.least is not None and value < node.least:
        message = (
            f"Invalid '{param}': integer below minimum value. Expected a value >="
            f" {node.least}, but got {value} instead."
        )
        raise refusal(message, param, "integer_below_min_value")
    if node.most is not None and value > node.most:
        raise above_most(value, param, node.most)


def above_most(value: int, param: str, most: int) -> ApiError:
    """OpenAI's refusal of an integer over the most it takes ("Invalid 'n': integer above
    maximum value. Expected a value <= 128, but got 129 instead.")."""
    message = (
        f"Invalid '{param}': integer above maximum value. Expected a value <= {most}, but got"
        f" {value} instead."
    )
    return refusal(message, param, "integer_above_max_value")


def _one_of(value: Any, values: tuple[str, ...], param: str) -> None:
    if not isinstance(value, str):
        raise wrong_kind(value, param, f"one of {_listed(values, 'or')}")
    if value not in values:
        message = f"Invalid value: '{value}'. Supported values are: {_listed(values, 'and')}."
        raise refusal(message, param, "invalid_value")


def _fields(value: Any, node: Fields, param: str) -> None:
    if not isinstance(value, dict):
        raise wrong_kind(value, param, "an object")
    for name, inner in node.fields.items():
        where = f"{param}.{name}" if param else name
        if value.get(name) is not None:
            check(value[name], inner, where)
        elif name in node.required:
            raise _missing(where)


def _typed(value: Any, node: Typed, param: str) -> None:
    """The object's `type` first: required, a string, one OpenAI knows; then its fields."""
    if not isinstance(value, dict):
        raise wrong_kind(value, param, "an object")
    kind = value.get("type")
    if kind is None:
        raise _missing(f"{param}.type")
    _one_of(kind, (*node.types, *node.opaque), f"{param}.type")
    if kind in node.types:
        _fields(value, node.types[kind], param)


def _items(value: Any, node: Items, param: str) -> None:
    if not isinstance(value, list):
        return
    for index, item in enumerate(value):
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind in node.types:
            _fields(item, node.types[kind], f"{param}[{index}]")


def refuse_role_fields(messages: list[Any], required: Mapping[str, tuple[str, ...]]) -> None:
    """Refuse the first chat message without a field its role requires (a tool result's
    `tool_call_id`), in the words of OpenAI's older check of a conversation: its own
    message, `messages.[N]` with a dot, a null code."""
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        for name in required.get(role, ()) if isinstance(role, str) else ():
            if message.get(name) is None:
                message_text = (
                    f"Missing parameter '{name}': messages with role '{role}' must have a '{name}'."
                )
                raise refusal(message_text, f"messages.[{index}].{name}", None)


def _metadata(value: Any, node: Metadata, param: str) -> None:
    if not isinstance(value, dict):
        raise wrong_kind(value, param, "a metadata object")
    if len(value) > node.keys:
        message = (
            f"Invalid '{param}': too many properties. Expected an object with at most"
            f" {node.keys} properties, but got an object with {len(value)} properties instead."
        )
        raise refusal(message, param, "object_above_max_properties")
    for key, entry in value.items():
        where = f"{param}.{key}"
        name_long = f"Invalid property name in '{param}': '{key}' is too long."
        _at_most(key, node.key_chars, name_long, where, "property_name_above_max_length")
        if not isinstance(entry, str):
            raise wrong_kind(entry, where, "a string")
        value_long = f"Invalid '{where}': string too long."
        _at_most(entry, node.value_chars, value_long, where, "string_above_max_length")


def _at_most(text: str, chars: int, opening: str, param: str, code: str) -> None:
    """OpenAI's refusal of a string longer than `chars`, a metadata key's or value's: the
    same words after `opening`, which says what is too long."""
    if len(text) > chars:
        message = (
            f"{opening} Expected a string with maximum length {chars}, but got a string with"
            f" length {len(text)} instead."
        )
        raise refusal(message, param, code)
