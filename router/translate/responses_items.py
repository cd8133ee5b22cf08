"""The Response object and its output items, as OpenAI writes them: shared by a whole reply
translated from chat and by a stream's events (`router.translate.responses_reply`).

A custom tool call reaches a chat backend as a function of one string argument (`input`):
its item unwraps that argument (`router.translate.custom_input`), whole or, in an item not
completed, as far as it came.
"""

from __future__ import annotations

from types import UnionType
from typing import Any

import orjson

from router.echoed_fields import CHECKED_TOOLS, CHOICE_TYPES, CHOICES, MEMBERS
from router.ledger.usage import normalize_usage
from router.translate.custom_input import custom_input
from router.translate.tool_ids import reply_part
from router.translate.wire import LIMIT_REASONS

# finish reasons that stop an item midway: a token limit's (`LIMIT_REASONS`), a filter's
CUT = LIMIT_REASONS | {"content_filter"}


def usage(chat_usage: Any) -> dict[str, Any] | None:
    if not isinstance(chat_usage, dict):
        return None
    counts = normalize_usage("chat", chat_usage)
    prompt, completion = counts.prompt_tokens, counts.completion_tokens
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": counts.cached_tokens,
            "cache_write_tokens": counts.cache_write_tokens,
        },
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": counts.reasoning_tokens},
        "total_tokens": prompt + completion,
    }


def response_id(part: str | None = None) -> str:
    """A Response's id: `resp_` and its reply's random part (`tool_ids.reply_part`), the one
    its items' ids hold. Not the chat backend's completion id: the router keeps what it made
    by its id (`router.stored_items`), and a backend may repeat one (Ollama draws
    `chatcmpl-<n>` from 999 values), so a later answer with the same id replaced an earlier
    one, and a turn naming the earlier one got another conversation's answer (found running
    VoltAgent). `part`: the reply's, a new one when it has none yet (a refusal's)."""
    return f"resp_{part or reply_part()}"


def envelope(
    rid: str, model: Any, request: dict[str, Any], status: str, created_at: int
) -> dict[str, Any]:
    """The Response object around the output, echoing what the client asked for, as OpenAI
    does: each field `openai.types.responses.Response` reads from the request, its default
    when not asked. `request` is the client's own, with the `previous_response_id` the
    router took out of what it sent (`call.Call.asked`). One response's every event
    carries the same `created_at`: its caller takes the time once. Not `service_tier`:
    OpenAI's `response.created` echoes the tier asked, but the chat backend was never asked
    one (`responses_request` drops it), so an opener that echoed `flex` was followed by a
    `default` served (found in review); null until `finish` says what served it."""
    return {
        "id": rid,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "model": model,
        "output": [],
        "parallel_tool_calls": _asked(request, "parallel_tool_calls", bool, True),
        "previous_response_id": request.get("previous_response_id"),
        "reasoning": _asked(request, "reasoning", dict, {"effort": None, "summary": None}),
        "service_tier": None,  # never asked of chat: the tier served is `finish`'s
        "store": _asked(request, "store", bool, True),
        "temperature": request.get("temperature", 1.0),
        "text": text_config(request.get("text")),
        "tool_choice": echoed_choice(request.get("tool_choice")),
        "tools": echoed_tools(request.get("tools")),
        "top_p": request.get("top_p", 1.0),
        "truncation": _asked(request, "truncation", str, "disabled"),
        "usage": None,
        "user": _asked(request, "user", str, None),
        "metadata": request.get("metadata") or {},
    }


def _asked(request: dict[str, Any], name: str, kind: type | UnionType, default: Any) -> Any:
    """The request's `name` when it is a `kind`, else OpenAI's default for it."""
    value = request.get(name)
    return value if isinstance(value, kind) else default


def echoed_tools(tools: Any) -> list[dict[str, Any]]:
    """The request's tools a Response made over chat lists: those chat was offered, function,
    custom and namespace tools (a namespace with its function and custom tools), checked
    whole before any backend was tried (`router.echoed_fields`). A hosted tool runs at
    OpenAI and a type the `openai` SDK does not know may be a native backend's: the model
    was offered neither (`responses_request.dropped_tools`), and echoed as sent, a
    malformed or unknown one made a Response the SDK's model refuses."""
    out: list[dict[str, Any]] = []
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict) or tool.get("type") not in CHECKED_TOOLS:
            continue
        inner = tool.get("tools")
        if tool["type"] == "namespace" and isinstance(inner, list):
            kept = [t for t in inner if isinstance(t, dict) and t.get("type") in MEMBERS]
            tool = tool if len(kept) == len(inner) else {**tool, "tools": kept}
        out.append(tool)
    return out


def echoed_choice(choice: Any) -> Any:
    """The request's `tool_choice` when of a type the `openai` SDK's Response model reads
    (checked whole before any backend was tried, `router.echoed_fields`), else `auto`, what
    chat was sent: for null, for a type the SDK does not know, and for an MCP choice that
    names no server (`{"type": "mcp"}`, as the OpenAI Agents SDK's `tool_choice="mcp"` and
    the AI SDK send it), all of which its model refuses."""
    if choice in CHOICES:
        return choice
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in CHOICE_TYPES or (kind == "mcp" and "server_label" not in choice):
        return "auto"
    return choice


def text_config(asked: Any) -> dict[str, Any]:
    """The `text` a Response echoes: the request's `format` (`{"type": "text"}` when not
    asked) and `verbosity` when asked. A client reads its structured output by it: LangChain
    fills `parsed` only when `text.format.type` is `json_schema` (without it, its
    `with_structured_output` stream failed over a chat backend: found running LangChain)."""
    asked = asked if isinstance(asked, dict) else {}
    fmt = asked.get("format")
    out: dict[str, Any] = {"format": fmt if isinstance(fmt, dict) else {"type": "text"}}
    if isinstance(asked.get("verbosity"), str):
        out["verbosity"] = asked["verbosity"]
    return out


def finish(
    out: dict[str, Any], reason: str | None, chat_usage: Any, service_tier: Any = None
) -> dict[str, Any]:
    """`out`, the Response of a chat answer now whole: its status by the chat `reason`, its
    usage, and the `service_tier` the chat answer said served it (null when it said none, as
    vLLM's), as a chat client reads it from the same backend: OpenAI answers `auto` with the
    tier it used (`default`), and the Response said null where chat said `default` (found
    in a live run of the openai SDK). Until then it is null: no tier was asked of chat."""
    out["service_tier"] = service_tier if isinstance(service_tier, str) else None
    if reason in LIMIT_REASONS:  # Mistral's `model_length` too: the context window cut it
        out["status"] = "incomplete"
        out["incomplete_details"] = {"reason": "max_output_tokens"}
    elif reason == "content_filter":
        out["status"] = "incomplete"
        out["incomplete_details"] = {"reason": "content_filter"}
    else:
        out["status"] = "completed"
    out["usage"] = usage(chat_usage)
    return out


def text_item(
    item_id: str, text: str, status: str = "completed", refusal: bool = False
) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    if refusal:
        part = {"type": "refusal", "refusal": text}
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": [] if status == "in_progress" else [part],
    }


# The id of every reasoning item the router makes: OpenAI's own are `rs_` and hex digits, so
# no item OpenAI made begins so. A client that replays the router's item to a backend that
# speaks Responses itself would get OpenAI's 404 for an item it does not hold: it is left
# out there (`router.translate.native_responses`).
OWN_REASONING = "rs_smf_"


def reasoning_id(base: str) -> str:
    """The id of a reasoning item the router made from a chat backend's reasoning, `base`
    its reply's random part (and its place), as every item's it makes (`response_id`)."""
    return f"{OWN_REASONING}{base}"


def reasoning_item(item_id: str, text: str, status: str = "completed") -> dict[str, Any]:
    """A chat backend's reasoning as vLLM's Responses server writes it: its text a
    `reasoning_text` part of `content`, no summary (the model wrote none), no
    `encrypted_content`. Announced (`in_progress`) without content, as vLLM does."""
    item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
    if status != "in_progress":
        item["content"] = [{"type": "reasoning_text", "text": text}]
    return item | {"status": status}


def call_item(
    item_id: str,
    call_id: str,
    name: str,
    arguments: str,
    custom: bool,
    status: str = "completed",
    namespace: str | None = None,
) -> dict[str, Any]:
    """A call's item; a namespaced tool's names the tool and its `namespace` apart, as
    OpenAI's do (`router.translate.namespaces`: Codex dispatches by the two)."""
    named: dict[str, Any] = {"name": name}
    if namespace is not None:
        named["namespace"] = namespace
    if custom:
        return {
            "type": "custom_tool_call",
            "id": item_id,
            "call_id": call_id,
            **named,
            "input": ""
            if status == "in_progress"
            else custom_input(arguments, status != "completed"),
            "status": status,
        }
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        **named,
        "arguments": arguments,
        "status": status,
    }


def parses(arguments: str) -> bool:
    try:
        orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return False
    return True
