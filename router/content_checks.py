"""The content of a Messages or Responses request, checked as its API checks it: each block's
or part's shape (an object with a string `type`, the text of a text block or part a string),
a message's role, Messages' `stop_sequences`, before the plan (`router.request`); and each
`type`, where the body is translated to chat (`uncarried`).

Translated for a chat backend (`router.translate.anthropic_request`, `responses_request`),
what the translation did not recognise was dropped without a word: a second block typed
`txt` was answered 200, its text never sent to the model; a text block whose `text` was a
list was dropped, and when it was the only one the client got the backend's 400 naming
chat's `messages`, a field it never sent; a role `robot` became `user`; `count_tokens`
counted what serving dropped (found in review). Anthropic and OpenAI refuse each with a 400
naming the path (`messages[0].content[1].type`); so does the router now, in the client's
API's words (`router.field_refusals`).

A type is refused only when it is neither one the translation reads nor one the API
documents, and only where a chat backend would get it: real clients send documented types
the translation drops on purpose (thinking and redacted thinking, server tool results,
Codex's `reasoning`, `local_shell_call`, `web_search_call` and `compaction` items,
`item_reference`), and each keeps today's treatment (docs/agents/backends.md,
docs/compatibility.md); a native Messages or Responses backend passes any type through, so
one the API adds after these lists is served there, never refused before the plan (found in
review). The sets are the `anthropic` SDK's (2.16: `ContentBlockParam`,
`BetaContentBlockParam`, `ToolResultBlockParam.content`, `MessageParam`) and the `openai`
SDK's (3.57: `ResponseInputItemParam`, `BetaResponseInputItemParam`,
`ResponseInputContentParam`, the output message's content), and what Codex sends beside them
(`ghost_snapshot`, the older `compaction_summary`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from router.errors import InvalidValue
from router.field_refusals import missing, with_anthropic_words, wrong_type
from router.translate.responses_request import is_reference
from router.translate.text_parts import REFUSAL, TEXT_PARTS

# Messages: the roles of `MessageParam` (a `system` turn is Claude Code's, newer versions)
MESSAGES_ROLES = ("user", "assistant", "system")
# Messages' content blocks: those the translation reads...
MESSAGES_READ = ("text", "image", "document", "search_result", "tool_use", "tool_result")
# ... and those it drops (`router.translate.anthropic_request`)
MESSAGES_DROPPED = (
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "container_upload",
    "advisor_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "mcp_tool_listing",
    "compaction",
    "tool_addition",
    "tool_removal",
    "fallback",
)
MESSAGES_BLOCKS = frozenset((*MESSAGES_READ, *MESSAGES_DROPPED))
# A `tool_result`'s content blocks (a tool search's `tool_reference` among them)
TOOL_RESULT_BLOCKS = frozenset(
    ("text", "image", "document", "search_result", "tool_reference", "browser_state")
)
SYSTEM_BLOCKS = frozenset(("text",))

# Responses: a message item's roles (`EasyInputMessageParam`'s)
RESPONSES_ROLES = ("user", "assistant", "system", "developer")
# Responses' input items: those the translation reads (a reference: refused as server state)...
RESPONSES_READ = (
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "item_reference",
)
# ... those it drops, the `openai` SDK's (hosted tools' calls, reasoning, compaction)
RESPONSES_DROPPED = (
    "reasoning",
    "compaction",
    "file_search_call",
    "computer_call",
    "computer_call_output",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
    "additional_tools",
    "configuration_update",
    "image_generation_call",
    "code_interpreter_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "mcp_call",
    "compaction_trigger",
    "program",
    "program_output",
    "agent_message",
    "multi_agent_call",
    "multi_agent_call_output",
)
# ... and Codex's own (its `ResponseItem`), which it drops too
CODEX_ITEMS = ("ghost_snapshot", "compaction_summary")
RESPONSES_ITEMS = frozenset((*RESPONSES_READ, *RESPONSES_DROPPED, *CODEX_ITEMS))
# A message's or a tool output's content parts: input and output ones, chat's `text` and
# `input_audio` (which the translation reads), and the ones OpenAI's 400 lists beside them
RESPONSES_PARTS = frozenset(
    (
        "input_text",
        "input_image",
        "input_file",
        "input_audio",
        "output_text",
        "refusal",
        "text",
        "computer_screenshot",
        "summary_text",
        "reasoning_text",
    )
)
# The parts whose words are their `text` (a refusal's are its `refusal`): the translation's
# (`router.translate.text_parts`), and the two reasoning ones, whose text is a string too
_TEXT_PARTS = frozenset((*TEXT_PARTS, "summary_text", "reasoning_text"))
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
# What a content or `system` is, a string or an array of parts, in OpenAI's words for chat's
# content ("expected one of a string or array of objects", pydantic/pydantic-ai#2653)
TEXT_OR_BLOCKS = "one of a string or array of objects"


def check_messages_content(body: dict[str, Any]) -> None:
    """A Messages body's shapes, in one pass: each message an object with a role of the API
    and a content that is a string, an array of blocks or null; each block (and a tool
    result's, and a system one) an object with a string `type`, a text block's `text` a
    string, an image's `source` an object; `stop_sequences`. `messages` is already a
    non-empty list. A `type` the translation does not know is no shape: a native backend
    takes it (`uncarried`). Every request of an agent's long history: the common blocks are
    checked inline, the path made only on failure. One pass, where three walked the same
    messages (their objects and roles, their blocks, the roles and types again: found in
    review)."""
    for index, message in enumerate(body["messages"]):
        if type(message) is not dict:
            raise wrong_type(message, f"messages[{index}]", "an object")
        if message.get("role") not in MESSAGES_ROLES:
            _role(message.get("role"), f"messages[{index}].role")
        content = message.get("content")
        if type(content) is list:
            _check_blocks(content, index)
        elif content is not None and type(content) is not str:
            raise wrong_type(content, f"messages[{index}].content", TEXT_OR_BLOCKS)
    system = body.get("system")
    if type(system) is list:
        _shapes(system, "system")
    _check_stop_sequences(body.get("stop_sequences"))


def _role(role: Any, where: str) -> None:
    """Raise for a Messages role that is absent, no string, or none of the API's."""
    if role is None:
        raise missing(where)
    _one_of(role, MESSAGES_ROLES, where)


def _check_blocks(content: list[Any], index: int) -> None:
    """Message `index`'s blocks (`check_messages_content`): the common ones inline."""
    for at, block in enumerate(content):
        if type(block) is dict:
            kind = block.get("type")
            if kind == "text":
                if type(block.get("text")) is str:
                    continue
            elif kind == "tool_use":
                continue
            elif kind == "tool_result":
                inner = block.get("content")
                if type(inner) is list:
                    _shapes(inner, f"messages[{index}].content[{at}].content")
                continue
            elif kind == "image":
                if type(block.get("source")) is dict:
                    continue
            elif type(kind) is str:
                continue
        _bad_block(block, f"messages[{index}].content[{at}]")


def _bad_block(block: Any, where: str) -> None:
    """Raise for a Messages block that is not an object, has no string `type`, a text that
    is no string or an image `source` that is no object, naming it: an absent (or null)
    source is missing, as every absent field the router requires is."""
    _object(block, where)
    _shape(block, where)
    if block["type"] == "image":
        source = block.get("source")
        raise (
            missing(f"{where}.source")
            if source is None
            else wrong_type(source, f"{where}.source", "an object")
        )


def _check_stop_sequences(given: Any) -> None:
    """A list of strings (or one string, as chat's `stop` takes it): it is copied to chat's
    `stop`, and another value was a backend's 400 naming `stop`, which the client never
    sent (found in review)."""
    if given is None or isinstance(given, str):
        return
    if not isinstance(given, list):
        raise wrong_type(given, "stop_sequences", "an array of strings")
    for index, sequence in enumerate(given):
        if not isinstance(sequence, str):
            raise wrong_type(sequence, f"stop_sequences[{index}]", "a string")


def check_responses_input(items: list[Any]) -> None:
    """A Responses `input`'s shapes: each item's `type` a string when given, a message's
    role, a message's or a tool output's parts objects with a string `type` and a text
    part's text a string; the items are already objects (`router.request`). A type the
    translation does not know is no shape (`uncarried`)."""
    for index, item in enumerate(items):
        kind = item.get("type")
        if kind is None:  # a message, or a reference by `id` alone (`is_reference`)
            kind = "item_reference" if is_reference(item) else "message"
        elif type(kind) is not str:
            raise wrong_type(kind, f"input[{index}].type", "a string")
        if kind == "message":
            role = item.get("role")
            if role is not None and role not in RESPONSES_ROLES:
                _one_of(role, RESPONSES_ROLES, f"input[{index}].role")
            content = item.get("content")
            if type(content) is list:
                _shapes(content, f"input[{index}].content")
        elif kind in _OUTPUTS and type(item.get("output")) is list:
            _shapes(item["output"], f"input[{index}].output")


def uncarried(api: str, body: dict[str, Any]) -> InvalidValue | None:
    """The refusal of a Messages or Responses `body` holding a block, item or part `type`
    that is neither one the translation to chat reads nor one the API documents, naming the
    first: the translation would drop it without a word. Asked where a body is translated
    (`router.translate.exchange`, a count no native backend makes: `router.api.counting`),
    never before the plan: a native backend passes it through, and a type the API adds
    after the lists were made is then served (found in review). The shapes were checked
    (`check_messages_content`, `check_responses_input`)."""
    if api == "messages":
        return _messages_uncarried(body)
    items = body.get("input")
    return _responses_uncarried(items) if type(items) is list else None


def _messages_uncarried(body: dict[str, Any]) -> InvalidValue | None:
    for index, message in enumerate(body["messages"]):
        content = message.get("content")
        if type(content) is not list:
            continue
        for at, block in enumerate(content):
            kind = block["type"]
            if kind not in MESSAGES_BLOCKS:
                return _invalid(f"messages[{index}].content[{at}].type", MESSAGES_BLOCKS)
            inner = block.get("content") if kind == "tool_result" else None
            if type(inner) is list:
                where = f"messages[{index}].content[{at}].content"
                unknown = _unknown(inner, TOOL_RESULT_BLOCKS, where)
                if unknown is not None:
                    return unknown
    system = body.get("system")
    return _unknown(system, SYSTEM_BLOCKS, "system") if type(system) is list else None


def _responses_uncarried(items: list[Any]) -> InvalidValue | None:
    for index, item in enumerate(items):
        kind = item.get("type")
        if kind is None:
            kind = "item_reference" if is_reference(item) else "message"
        elif kind not in RESPONSES_ITEMS:
            return _invalid(f"input[{index}].type", RESPONSES_ITEMS)
        parts = item.get("content") if kind == "message" else item.get("output")
        if (kind == "message" or kind in _OUTPUTS) and type(parts) is list:
            field = "content" if kind == "message" else "output"
            unknown = _unknown(parts, RESPONSES_PARTS, f"input[{index}].{field}")
            if unknown is not None:
                return unknown
    return None


def _unknown(blocks: list[Any], known: frozenset[str], where: str) -> InvalidValue | None:
    """The refusal of the first of `blocks` (objects with a string `type`) whose type is not
    one of `known`."""
    for index, block in enumerate(blocks):
        if block["type"] not in known:
            return _invalid(f"{where}[{index}].type", known)
    return None


def _shapes(blocks: list[Any], where: str) -> None:
    """Each of `blocks` an object with a string `type`, a text one's `text` (a refusal's
    `refusal`) a string."""
    for index, block in enumerate(blocks):
        if type(block) is not dict or not _fine(block):
            _object(block, f"{where}[{index}]")
            _shape(block, f"{where}[{index}]")


def _fine(block: dict[str, Any]) -> bool:
    """Whether `_shape` passes `block`, asked without making its path."""
    kind = block.get("type")
    if type(kind) is not str:
        return False
    if kind in _TEXT_PARTS:
        return type(block.get("text")) is str
    return kind != REFUSAL or type(block.get(REFUSAL)) is str


def _object(value: Any, where: str) -> None:
    if type(value) is not dict:
        raise wrong_type(value, where, "an object")


def _shape(block: dict[str, Any], where: str) -> None:
    """A block's or part's `type` is a string, and a text one's `text` (a refusal's
    `refusal`) a string."""
    kind = block.get("type")
    if kind is None:
        raise missing(f"{where}.type")
    if type(kind) is not str:
        raise wrong_type(kind, f"{where}.type", "a string")
    if kind in _TEXT_PARTS:
        _string(block.get("text"), f"{where}.text")
    elif kind == REFUSAL:
        _string(block.get(REFUSAL), f"{where}.{REFUSAL}")


def _string(value: Any, where: str) -> None:
    if type(value) is str:
        return
    raise missing(where) if value is None else wrong_type(value, where, "a string")


def _one_of(value: Any, allowed: tuple[str, ...], where: str) -> None:
    if value in allowed:
        return
    if not isinstance(value, str):
        raise wrong_type(value, where, "a string")
    raise _invalid(where, allowed)


def _invalid(where: str, allowed: Collection[str]) -> InvalidValue:
    """OpenAI's `invalid_value` ("Invalid value for 'input[0].content[0].type': supported
    values are ..."), and pydantic's words for a Messages client, as Anthropic's 400 has
    them ("Input tag ... does not match any of the expected tags"). The value itself is not
    quoted: it is the client's text, and may be anything."""
    listed = sorted(allowed) if isinstance(allowed, frozenset) else list(allowed)
    named = ", ".join(repr(a) for a in listed)
    refusal = InvalidValue(
        f"Invalid value for '{where}': supported values are {named}.", param=where
    )
    words = f"Input should be one of {named}" if where.endswith(".role") else None
    said = words or f"Input tag does not match any of the expected tags: {named}"
    return with_anthropic_words(refusal, said)
