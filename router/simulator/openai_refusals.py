"""OpenAI's 400s for the Responses fields a Response echoes, and for the kind of the
Responses and chat fields the router reads, as OpenAI answers them.

The cloud profile stands for OpenAI: a `truncation`, `metadata`, `reasoning`, `text`,
`tools` or `tool_choice` OpenAI refuses, it refuses too, in OpenAI's error body
(`{"error": {"message", "type": "invalid_request_error", "param", "code"}}`) and words;
so a `store`, `background`, `stream`, `stream_options`, `instructions` or
`max_output_tokens` of the wrong JSON kind (or below 16), and on chat (`refuse_chat`) a
`messages`, `stream`, `store`, `max_tokens`, `max_completion_tokens`, `temperature`,
`stream_options`, `tools`, `logprobs` or `top_logprobs` of one, `messages` or `tools`
empty, `messages` missing or a message without its `role`, an output limit below 1,
`top_logprobs` below 0. The tables below are the simulator's
own, written from OpenAI's API and not from the router's check of the same fields
(`router.echoed_fields`, `router.request`): the cloud profile called that check, so a test
comparing the router's refusal with the simulator's compared a check with itself, and a
router check that drifted from OpenAI's went unseen. Now it is seen
(`tests/agent_apis/test_agent_refusal_parity.py`). Nothing here comes from the router.

Sources. The closed sets and the fields each tool takes are the `openai` SDK's types (3.57:
`types/responses/response_create_params.py`, `function_tool.py`, `custom_tool.py`,
`namespace_tool.py`, `tool.py`, `tool_choice_*.py`, `types/shared/reasoning.py`). The codes
and words are those of OpenAI's 400s as its clients quote them: "Invalid value: 'other'.
Supported values are: 'search', 'open_page', and 'find_in_page'." (`invalid_value`,
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
OpenAI Agents SDK sends it for an agent without tools (`tests/fixtures/openai-agents-*`);
"Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0
instead." (`integer_below_min_value`, it-at-m/mucgpt#608), and of
`max_output_tokens` ">= 16, but got 10" (vectorize-io/hindsight#58). A
JSON null is a field not asked, as OpenAI takes it of an optional field; a metadata value
is a string.
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
    may not be empty; `least`: the least an integer may be."""

    said: str
    kinds: tuple[type, ...]
    filled: bool = False
    least: int | None = None


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
class Typed:
    """An object its `type` names: each type's fields; `opaque`, the types OpenAI knows
    whose fields are not checked here (hosted tools). Any other type is refused."""

    types: Mapping[str, Fields]
    opaque: tuple[str, ...] = ()


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


Node = Kind | OneOf | Fields | ListOf | Typed | Choice | Metadata

STRING, BOOLEAN = Kind("a string", (str,)), Kind("a boolean", (bool,))
OBJECT, DECIMAL = Kind("an object", (dict,)), Kind("a decimal", (int, float))
INTEGER = Kind("an integer", (int,))
# An output limit: at least 1 on chat; Responses' at least 16 (vectorize-io/hindsight#58)
LIMIT, OUTPUT_LIMIT = Kind("an integer", (int,), least=1), Kind("an integer", (int,), least=16)
NAME, ANYTHING = Kind("a string", (str,), filled=True), Kind("anything", (object,))

TRUNCATIONS = ("auto", "disabled")
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
SUMMARIES = ("auto", "concise", "detailed")
CONTEXTS = ("auto", "current_turn", "all_turns")
VERBOSITIES = ("low", "medium", "high")
CALLERS = ("direct", "programmatic")
SYNTAXES = ("lark", "regex")
CHOICES = ("none", "auto", "required")
MODES = ("auto", "required")  # an `allowed_tools` choice's
# The SDK's `Tool` union less the function, custom and namespace tools checked whole
HOSTED_TOOLS = (
    *("file_search", "computer", "computer_use_preview", "web_search"),
    *("web_search_2025_08_26", "mcp", "code_interpreter", "programmatic_tool_calling"),
    *("image_generation", "local_shell", "shell", "tool_search", "web_search_preview"),
    *("web_search_preview_2025_03_11", "apply_patch"),
)
# The `tool_choice` objects of a type alone: `ToolChoiceTypes`, apply_patch, shell,
# programmatic tool calling
HOSTED_CHOICES = (
    *("file_search", "web_search_preview", "computer", "computer_use_preview"),
    *("computer_use", "web_search_preview_2025_03_11", "image_generation"),
    *("code_interpreter", "apply_patch", "shell", "programmatic_tool_calling"),
)

_OPTIONS: dict[str, Node] = {"allowed_callers": ListOf(OneOf(CALLERS)), "async": BOOLEAN}
_OPTIONS |= {"defer_loading": BOOLEAN, "description": STRING}
_SCHEMAS: dict[str, Node] = {"strict": BOOLEAN, "output_schema": OBJECT}
FUNCTION = Fields({"name": NAME, "parameters": OBJECT, **_SCHEMAS, **_OPTIONS}, ("name",))
# a namespace's function: `ToolFunction.parameters` is an `object`, of any kind
MEMBER_FUNCTION = Fields({"name": NAME, "parameters": ANYTHING, **_SCHEMAS, **_OPTIONS}, ("name",))
GRAMMAR = Fields({"syntax": OneOf(SYNTAXES), "definition": STRING}, ("syntax", "definition"))
CUSTOM = Fields(
    {"name": NAME, **_OPTIONS, "format": Typed({"text": Fields(), "grammar": GRAMMAR})},
    ("name",),
)
NAMESPACE = Fields(
    {
        "name": NAME,
        "description": STRING,
        "tools": ListOf(Typed({"function": MEMBER_FUNCTION, "custom": CUSTOM})),
    },
    ("name", "description", "tools"),
)
NAMED = Fields({"name": STRING}, ("name",))
TOOL_CHOICE = Choice(
    OneOf(CHOICES),
    Typed(
        {
            "function": NAMED,
            "custom": NAMED,
            "mcp": Fields({"server_label": STRING, "name": STRING}, ("server_label",)),
            "allowed_tools": Fields(
                {"mode": OneOf(MODES), "tools": ListOf(OBJECT)}, ("mode", "tools")
            ),
        },
        HOSTED_CHOICES,
    ),
)
JSON_SCHEMA = Fields(
    {"name": STRING, "schema": OBJECT, "description": STRING, "strict": BOOLEAN},
    ("name", "schema"),
)
TEXT_FORMATS = Typed({"text": Fields(), "json_schema": JSON_SCHEMA, "json_object": Fields()})
REASONING = Fields(
    {
        "effort": OneOf(EFFORTS),
        "summary": OneOf(SUMMARIES),
        "generate_summary": OneOf(SUMMARIES),  # `summary`'s deprecated name
        "context": OneOf(CONTEXTS),
        "mode": STRING,
    }
)
# The request's fields checked, in the order OpenAI's 400s report them where known
REQUEST = Fields(
    {
        "tools": ListOf(
            Typed({"function": FUNCTION, "custom": CUSTOM, "namespace": NAMESPACE}, HOSTED_TOOLS),
            "an array of tools",
        ),
        "tool_choice": TOOL_CHOICE,
        "metadata": Metadata(),
        "text": Fields({"format": TEXT_FORMATS, "verbosity": OneOf(VERBOSITIES)}),
        "temperature": DECIMAL,
        "top_p": DECIMAL,
        "parallel_tool_calls": BOOLEAN,
        "reasoning": REASONING,
        "user": STRING,
        "previous_response_id": STRING,
        "truncation": OneOf(TRUNCATIONS),
        "store": BOOLEAN,
        "background": BOOLEAN,
        "stream": BOOLEAN,
        "stream_options": OBJECT,
        "instructions": STRING,
        "max_output_tokens": OUTPUT_LIMIT,
    }
)
# A chat message: its role required (its values are the backend's to check here), its
# content a string or an array of parts
MESSAGE = Fields(
    {"role": ANYTHING, "content": Kind("one of a string or array of objects", (str, list))},
    ("role",),
)
# The chat fields checked: the kind of each the `openai` SDK's `CompletionCreateParams`
# types; `messages` and `tools` not empty
CHAT = Fields(
    {
        "messages": ListOf(MESSAGE, "an array of objects", filled=True),
        "stream": BOOLEAN,
        "stream_options": OBJECT,
        "store": BOOLEAN,
        "max_tokens": LIMIT,
        "max_completion_tokens": LIMIT,
        "temperature": DECIMAL,
        "tools": ListOf(OBJECT, "an array of objects", filled=True),
        "logprobs": BOOLEAN,
        "top_logprobs": Kind("an integer", (int,), least=0),  # its most: `chat_logprobs`
    },
    ("messages",),
)


def refuse(body: dict[str, Any]) -> None:
    """Raise OpenAI's 400 for the first field of a Responses `body` it refuses."""
    _check(body, REQUEST, "")


def refuse_chat(body: dict[str, Any]) -> None:
    """Raise OpenAI's 400 for the first field of a chat `body` of the wrong kind, missing,
    empty or below its least."""
    _check(body, CHAT, "")


def _refusal(message: str, param: str, code: str) -> ApiError:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    raw = orjson.dumps({"error": error})
    return ApiError(400, "bad_request", message, param, raw=raw)


def _missing(param: str) -> ApiError:
    return _refusal(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")


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


def _wrong_kind(value: Any, param: str, expected: str) -> ApiError:
    message = f"Invalid type for '{param}': expected {expected}, but got {_got(value)} instead."
    return _refusal(message, param, "invalid_type")


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


def _check(value: Any, node: Node, param: str) -> None:
    """Refuse `value`, found at `param`, where `node` says OpenAI does."""
    if isinstance(node, Kind):
        _kind(value, node, param)
    elif isinstance(node, OneOf):
        _one_of(value, node.values, param)
    elif isinstance(node, Fields):
        _fields(value, node, param)
    elif isinstance(node, ListOf):
        if not isinstance(value, list):
            raise _wrong_kind(value, param, node.said)
        if node.filled and not value:
            message = (
                f"Invalid '{param}': empty array. Expected an array with minimum length 1,"
                " but got an empty array instead."
            )
            raise _refusal(message, param, "empty_array")
        for index, item in enumerate(value):
            _check(item, node.item, f"{param}[{index}]")
    elif isinstance(node, Typed):
        _typed(value, node, param)
    elif isinstance(node, Choice):
        if isinstance(value, str):
            _one_of(value, node.strings.values, param)
        elif isinstance(value, dict):
            _typed(value, node.objects, param)
        else:
            expected = f"one of an object or {_listed(node.strings.values, 'or')}"
            raise _wrong_kind(value, param, expected)
    else:
        _metadata(value, node, param)


def _kind(value: Any, node: Kind, param: str) -> None:
    """A value of `node`'s kind; a string not empty if `filled`, an integer at least its
    `least`."""
    if not _is(value, node):
        raise _wrong_kind(value, param, node.said)
    if node.filled and value == "":
        message = (
            f"Invalid '{param}': empty string. Expected a string with minimum length 1,"
            " but got an empty string instead."
        )
        raise _refusal(message, param, "empty_string")
    if node.least is not None and value < node.least:
        message = (
            f"Invalid '{param}': integer below minimum value. Expected a value >="
            f" {node.least}, but got {value} instead."
        )
        raise _refusal(message, param, "integer_below_min_value")


def _one_of(value: Any, values: tuple[str, ...], param: str) -> None:
    if not isinstance(value, str):
        raise _wrong_kind(value, param, f"one of {_listed(values, 'or')}")
    if value not in values:
        message = f"Invalid value: '{value}'. Supported values are: {_listed(values, 'and')}."
        raise _refusal(message, param, "invalid_value")


def _fields(value: Any, node: Fields, param: str) -> None:
    if not isinstance(value, dict):
        raise _wrong_kind(value, param, "an object")
    for name, inner in node.fields.items():
        where = f"{param}.{name}" if param else name
        if value.get(name) is not None:
            _check(value[name], inner, where)
        elif name in node.required:
            raise _missing(where)


def _typed(value: Any, node: Typed, param: str) -> None:
    """The object's `type` first: required, a string, one OpenAI knows; then its fields."""
    if not isinstance(value, dict):
        raise _wrong_kind(value, param, "an object")
    kind = value.get("type")
    if kind is None:
        raise _missing(f"{param}.type")
    _one_of(kind, (*node.types, *node.opaque), f"{param}.type")
    if kind in node.types:
        _fields(value, node.types[kind], param)


def _metadata(value: Any, node: Metadata, param: str) -> None:
    if not isinstance(value, dict):
        raise _wrong_kind(value, param, "a metadata object")
    if len(value) > node.keys:
        message = (
            f"Invalid '{param}': too many properties. Expected an object with at most"
            f" {node.keys} properties, but got an object with {len(value)} properties instead."
        )
        raise _refusal(message, param, "object_above_max_properties")
    for key, entry in value.items():
        where = f"{param}.{key}"
        name_long = f"Invalid property name in '{param}': '{key}' is too long."
        _at_most(key, node.key_chars, name_long, where, "property_name_above_max_length")
        if not isinstance(entry, str):
            raise _wrong_kind(entry, where, "a string")
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
        raise _refusal(message, param, code)
