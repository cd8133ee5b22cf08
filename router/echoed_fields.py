"""The Responses request fields a Response echoes, checked as OpenAI checks them.

A Response carries back what its request asked (`truncation`, `metadata`, `reasoning`,
`text`, `user`, `tools`, `tool_choice`, ...), and the router writes that Response itself
when a chat backend answers (`router.translate.responses_items.envelope`). A value of the
wrong kind went back as sent (`truncation: "sometimes"`, `reasoning.effort: 5`, a metadata
value that is a number, a function tool without a name), in a Response the `openai` SDK's
own `Response` model refuses; OpenAI refuses the request instead, a 400
`invalid_request_error` naming the field. So does the router, before any backend is tried,
for every backend alike, with OpenAI's code and `param` (`router.errors.InvalidValue` and
its siblings: `invalid_type` for a value of the wrong JSON kind, `empty_string`,
`property_name_above_max_length` for a metadata key, named `metadata.<key>`). The simulator
standing for OpenAI refuses these from a table of its own (`router.simulator.
openai_refusals`), so that a test comparing the two answers catches a check here that
drifts from OpenAI's. The closed sets are the `openai` SDK's (3.57: `openai/types/responses/
response_create_params.py`, `types/shared/reasoning.py`, `types/shared/reasoning_effort.py`,
`types/responses/response_text_config.py`, `types/responses/function_tool.py`,
`custom_tool.py`, `namespace_tool.py`, `tool_choice_*.py`); the metadata bounds are OpenAI's
documented ones (16 keys, keys of 64 characters, string values of 512). Each check is of
the value's kind only: what a model or backend supports (an effort one model lacks, a
temperature out of range) is the backend's to say.

Tools: the function, custom and namespace tools, the ones a chat backend is offered, are
checked whole. A tool of another type is the backend's: a hosted one (`web_search`,
`local_shell`, ...) runs at OpenAI, and a type the SDK does not know yet may be one a
backend that speaks Responses serves; neither is refused here, and the Response made over
chat does not list them (`router.translate.responses_items.echoed_tools`): the model was not
offered them. A `tool_choice` of a type the SDK does not know is not refused either, and is
echoed as what chat was sent, `auto`.
"""

from __future__ import annotations

from typing import Any

from router.errors import (
    EmptyString,
    InvalidType,
    InvalidValue,
    MissingParameter,
    PropertyNameTooLong,
    StringTooLong,
    TooManyProperties,
)

TRUNCATIONS = ("auto", "disabled")
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
SUMMARIES = ("auto", "concise", "detailed")
# `reasoning`'s closed fields and the values each takes (`generate_summary`: `summary`'s
# deprecated name)
REASONING = {
    "effort": EFFORTS,
    "summary": SUMMARIES,
    "generate_summary": SUMMARIES,
    "context": ("auto", "current_turn", "all_turns"),
}
FORMATS = ("text", "json_schema", "json_object")
VERBOSITIES = ("low", "medium", "high")
METADATA_KEYS, METADATA_KEY_CHARS, METADATA_VALUE_CHARS = 16, 64, 512

# The tools a chat backend is offered, checked whole: their optional fields and each one's
# JSON kind (`name` is required of all three; a namespace's `description` and `tools` too)
MEMBER_FIELDS: dict[str, type] = {"description": str, "defer_loading": bool, "async": bool}
FUNCTION_FIELDS = MEMBER_FIELDS | {"strict": bool, "parameters": dict, "output_schema": dict}
CUSTOM_FIELDS = MEMBER_FIELDS
CHECKED_TOOLS = ("function", "custom", "namespace")
MEMBERS = ("function", "custom")  # what a namespace holds
CALLERS = ("direct", "programmatic")  # `allowed_callers`
SYNTAXES = ("lark", "regex")  # a custom tool's grammar
# The tool types the SDK's `Tool` knows (`router.translate.responses_request` reads them)
TOOL_TYPES = (
    *CHECKED_TOOLS,
    *("file_search", "web_search", "web_search_2025_08_26", "web_search_preview"),
    *("web_search_preview_2025_03_11", "computer", "computer_use_preview", "mcp"),
    *("code_interpreter", "image_generation", "local_shell", "shell", "apply_patch"),
    *("tool_search", "programmatic_tool_calling"),
)
CHOICES = ("none", "auto", "required")
# The `tool_choice` objects of a type alone (the SDK's `ToolChoiceTypes`, apply_patch, shell,
# programmatic tool calling), and those with more: a name, a server's, a set of tools
HOSTED_CHOICES = (
    *("file_search", "web_search_preview", "computer", "computer_use_preview"),
    *("computer_use", "web_search_preview_2025_03_11", "image_generation"),
    *("code_interpreter", "apply_patch", "shell", "programmatic_tool_calling"),
)
CHOICE_TYPES = (*HOSTED_CHOICES, "function", "custom", "mcp", "allowed_tools")
CHOICE_MODES = ("auto", "required")  # an `allowed_tools` choice's


def check_echoed(body: dict[str, Any]) -> None:
    """Raise `BadRequest` naming the first field of a Responses `body` whose value a
    Response could not echo (`None`, JSON's null, stands for not asked)."""
    _one_of(body.get("truncation"), TRUNCATIONS, "truncation")
    _of_kind(body.get("parallel_tool_calls"), bool, "parallel_tool_calls")
    _of_kind(body.get("user"), str, "user")
    _of_kind(body.get("previous_response_id"), str, "previous_response_id")
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float | None):
            raise InvalidType(f"'{name}' must be a number", param=name)
    _check_metadata(body.get("metadata"))
    _check_reasoning(body.get("reasoning"))
    _check_text(body.get("text"))
    _check_tools(body.get("tools"))
    _check_choice(body.get("tool_choice"))


_SAID = {str: "a string", bool: "a boolean", dict: "an object", list: "an array"}


def _one_of(value: Any, allowed: tuple[str, ...], param: str, *, required: bool = False) -> None:
    """`value` is one of `allowed` (or null, unless `required`); a string outside them is
    OpenAI's `invalid_value`, a value of another kind its `invalid_type`."""
    if value is None and required:
        raise MissingParameter(f"'{param}' is required", param=param)
    if value is None or value in allowed:
        return
    named = ", ".join(repr(a) for a in allowed)
    error = InvalidValue if isinstance(value, str) else InvalidType
    raise error(f"'{param}' must be one of {named}{'' if required else ', or null'}", param=param)


def _of_kind(value: Any, kind: type, param: str) -> None:
    """`value` is a `kind` (a bool is no int here: JSON tells them apart) or null."""
    if value is not None and not isinstance(value, kind):
        raise InvalidType(f"'{param}' must be {_SAID[kind]}", param=param)


def _required(value: Any, kind: type, param: str) -> None:
    """`value` is a `kind`; left out (or null), OpenAI's `missing_required_parameter`."""
    if value is None:
        raise MissingParameter(f"'{param}' is required and must be {_SAID[kind]}", param=param)
    _of_kind(value, kind, param)


def _check_metadata(metadata: Any) -> None:
    """OpenAI's metadata: at most 16 string keys of 64 characters, string values of 512. A
    key's or a value's error names it as OpenAI's does (`metadata.<key>`)."""
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise InvalidType("'metadata' must be an object of strings", param="metadata")
    if len(metadata) > METADATA_KEYS:
        raise TooManyProperties(
            f"'metadata' holds {len(metadata)} keys; it may hold at most {METADATA_KEYS}",
            param="metadata",
        )
    for key, value in metadata.items():
        param = f"metadata.{key}"
        if len(key) > METADATA_KEY_CHARS:
            raise PropertyNameTooLong(
                f"the key of '{param}' is {len(key)} characters long; at most"
                f" {METADATA_KEY_CHARS} are allowed",
                param=param,
            )
        if not isinstance(value, str):
            raise InvalidType(f"'{param}' must be a string", param=param)
        if len(value) > METADATA_VALUE_CHARS:
            raise StringTooLong(
                f"'{param}' is {len(value)} characters long; at most {METADATA_VALUE_CHARS}"
                " are allowed",
                param=param,
            )


def _check_reasoning(reasoning: Any) -> None:
    if reasoning is None:
        return
    if not isinstance(reasoning, dict):
        raise InvalidType("'reasoning' must be an object", param="reasoning")
    for name, allowed in REASONING.items():
        _one_of(reasoning.get(name), allowed, f"reasoning.{name}")
    _of_kind(reasoning.get("mode"), str, "reasoning.mode")


def _check_text(text: Any) -> None:
    """`text.format` is one of the three a Response echoes, a JSON schema one with the
    `name` and `schema` a Response holds; `text.verbosity` one of three."""
    if text is None:
        return
    if not isinstance(text, dict):
        raise InvalidType("'text' must be an object", param="text")
    _one_of(text.get("verbosity"), VERBOSITIES, "text.verbosity")
    fmt = text.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise InvalidType("'text.format' must be an object", param="text.format")
    kind = fmt.get("type")
    _one_of(kind, FORMATS, "text.format.type", required=True)
    if kind == "json_schema":
        _required(fmt.get("name"), str, "text.format.name")
        _required(fmt.get("schema"), dict, "text.format.schema")


def _check_tools(tools: Any) -> None:
    """Every tool names its type; a function, custom or namespace tool is checked whole."""
    if tools is None:
        return
    if not isinstance(tools, list):
        raise InvalidType("'tools' must be an array of objects", param="tools")
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict):
            raise InvalidType(f"'{where}' must be an object", param=where)
        _required(tool.get("type"), str, f"{where}.type")
        if tool["type"] == "namespace":
            _check_namespace(tool, where)
        elif tool["type"] in MEMBERS:
            _check_member(tool, where)


def _check_namespace(tool: dict[str, Any], where: str) -> None:
    """A namespace's name, description and tools, each of its function and custom tools
    checked whole (one of another type is left out of the echo, as a hosted tool is)."""
    _named(tool, where)
    _required(tool.get("description"), str, f"{where}.description")
    members: Any = tool.get("tools")
    _required(members, list, f"{where}.tools")
    for index, member in enumerate(members):
        inner = f"{where}.tools[{index}]"
        if not isinstance(member, dict):
            raise InvalidType(f"'{inner}' must be an object", param=inner)
        _required(member.get("type"), str, f"{inner}.type")
        if member["type"] in MEMBERS:
            _check_member(member, inner, namespaced=True)


def _check_member(tool: dict[str, Any], where: str, namespaced: bool = False) -> None:
    """A function or custom tool as the SDK reads it (a namespace's function may have
    `parameters` of any kind: `ToolFunction.parameters` is an `object`)."""
    _named(tool, where)
    fields = FUNCTION_FIELDS if tool["type"] == "function" else CUSTOM_FIELDS
    for name, kind in fields.items():
        if not (namespaced and name == "parameters"):
            _of_kind(tool.get(name), kind, f"{where}.{name}")
    callers = tool.get("allowed_callers")
    _of_kind(callers, list, f"{where}.allowed_callers")
    for index, caller in enumerate(callers or ()):
        _one_of(caller, CALLERS, f"{where}.allowed_callers[{index}]", required=True)
    if tool["type"] == "custom":
        _check_format(tool.get("format"), f"{where}.format")


def _named(tool: dict[str, Any], where: str) -> None:
    """A tool's `name`: a string, and not empty (chat offers no tool without a name)."""
    _required(tool.get("name"), str, f"{where}.name")
    if not tool["name"]:
        raise EmptyString(f"'{where}.name' must not be empty", param=f"{where}.name")


def _check_format(fmt: Any, where: str) -> None:
    """A custom tool's input format: free text, or a Lark or regex grammar."""
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise InvalidType(f"'{where}' must be an object", param=where)
    _one_of(fmt.get("type"), ("text", "grammar"), f"{where}.type", required=True)
    if fmt["type"] == "grammar":
        _one_of(fmt.get("syntax"), SYNTAXES, f"{where}.syntax", required=True)
        _required(fmt.get("definition"), str, f"{where}.definition")


def _check_choice(choice: Any) -> None:
    """`tool_choice`: one of three strings, or an object naming its type, with what a
    choice of that type needs (a name, an MCP server, a set of tools and its mode)."""
    if choice is None or isinstance(choice, str):
        _one_of(choice, CHOICES, "tool_choice")
        return
    if not isinstance(choice, dict):
        raise InvalidType("'tool_choice' must be a string or an object", param="tool_choice")
    kind = choice.get("type")
    _required(kind, str, "tool_choice.type")
    if kind in ("function", "custom"):
        _required(choice.get("name"), str, "tool_choice.name")
    elif kind == "mcp":  # the OpenAI Agents SDK and the AI SDK send it without a server
        _of_kind(choice.get("server_label"), str, "tool_choice.server_label")
        _of_kind(choice.get("name"), str, "tool_choice.name")
    elif kind == "allowed_tools":
        _one_of(choice.get("mode"), CHOICE_MODES, "tool_choice.mode", required=True)
        listed: Any = choice.get("tools")
        _required(listed, list, "tool_choice.tools")
        for index, tool in enumerate(listed):
            if not isinstance(tool, dict):
                where = f"tool_choice.tools[{index}]"
                raise InvalidType(f"'{where}' must be an object", param=where)
