"""OpenAI's 400s for the Responses fields a Response echoes, and for the kind of the
Responses and chat fields the router reads, as OpenAI answers them.

The cloud profile stands for OpenAI: a `truncation`, `metadata`, `reasoning`, `text`,
`tools` or `tool_choice` OpenAI refuses, it refuses too, in OpenAI's error body (`{"error":
{"message", "type": "invalid_request_error", "param", "code"}}`) and words; so a `store`,
`background`, `stream`, `stream_options`, `instructions` or `max_output_tokens` of the
wrong JSON kind (or below 16), and on chat (`refuse_chat`) a `messages`, `stream`, `store`,
`max_tokens`, `max_completion_tokens`, `temperature`, `stream_options`, `tools`, `logprobs`,
`top_logprobs` or `n` of one, `messages`, `tools` or a message's content array empty,
`messages` missing or a message without its `role`, an output limit below 1, `top_logprobs`
below 0, `n` outside 1 to 128; then a tool result without its `tool_call_id`
(`ROLE_FIELDS`), and on both APIs a function's schema whose `type` is not JSON Schema's
(`router.simulator.openai_schemas`), and on Responses a `function_call_output` without its
`call_id`. llama-stack 0.2.12 sends the first two, which the cloud profile answered. The
tables below are the simulator's own, written from OpenAI's API and not from the router's
check of the same fields (`router.echoed_fields`, `router.request`): the cloud profile
called that check, so a test comparing the router's refusal with the simulator's compared a
check with itself, and a router check that drifted from OpenAI's went unseen. Now it is seen
(`tests/agent_apis/test_agent_refusal_parity.py`). Nothing here comes from the router.

Sources. The closed sets and the fields each tool takes are the `openai` SDK's types (3.57:
`types/responses/response_create_params.py`, `function_tool.py`, `custom_tool.py`,
`namespace_tool.py`, `tool.py`, `tool_choice_*.py`, `types/shared/reasoning.py`). The
refusals' words and codes are the walk's (`router.simulator.openai_shape`).
"""

from __future__ import annotations

from typing import Any

from router.simulator.openai_schemas import refuse_schemas
from router.simulator.openai_shape import (
    Choice,
    Fields,
    Items,
    Kind,
    ListOf,
    Metadata,
    Node,
    OneOf,
    Parts,
    Typed,
    check,
    refuse_role_fields,
)

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
        # a tool's output names the call it answers (`empty_string` of an empty one:
        # BigPizzaV3/CodexPlusPlus#315)
        "input": Items({"function_call_output": Fields({"call_id": NAME}, ("call_id",))}),
    }
)
# A chat message: its role required (its values are the backend's to check here), its
# content a string or an array of parts, not empty, its tool calls an array of objects
MESSAGE = Fields(
    {"role": ANYTHING, "content": Parts(), "tool_calls": ListOf(OBJECT, "an array of objects")},
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
        "n": Kind("an integer", (int,), least=1, most=128),  # OpenAI's API spec
    },
    ("messages",),
)
# The fields a chat message of a role requires, checked after the kinds in OpenAI's older
# words: "Missing parameter 'tool_call_id': messages with role 'tool' must have a
# 'tool_call_id'." (langchain-ai/langchain#22600, MadcowD/ell#325, vercel/ai#2178)
ROLE_FIELDS = {"tool": ("tool_call_id",)}


def refuse(body: dict[str, Any]) -> None:
    """Raise OpenAI's 400 for the first field of a Responses `body` it refuses, then for a
    function's schema that is not JSON Schema."""
    check(body, REQUEST, "")
    refuse_schemas(body.get("tools"), "")


def refuse_chat(body: dict[str, Any]) -> None:
    """Raise OpenAI's 400 for the first field of a chat `body` of the wrong kind, missing,
    empty or below its least; then for a function's schema that is not JSON Schema, then
    for a message without a field its role requires (a tool result's `tool_call_id`)."""
    check(body, CHAT, "")
    refuse_schemas(body.get("tools"), "function.")
    refuse_role_fields(body["messages"], ROLE_FIELDS)
