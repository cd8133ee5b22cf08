"""A chat body's tool results without their `tool_call_id`: given the ids of the calls they
answer, when the calls and the results pair one for one by position, for a backend not
taken for vLLM.

llama-stack 0.2.12's native chat path (`inference.chat_completion`, and its agents, which
use it) writes a tool result as `{"role": "tool", "content": [...]}` and nothing else: its
`convert_message_to_openai_dict` (providers/utils/inference/openai_compat.py) keeps the
ids of the assistant's `tool_calls` and drops the result's `call_id`. vLLM takes such a
message (its `CustomChatCompletionMessageParam` makes the id optional), and so the local
tier served it; OpenAI refuses it with a 400 ("Missing parameter 'tool_call_id': messages
with role 'tool' must have a 'tool_call_id'."), and no fallback follows a 400, so every
tool turn such a gateway sent that the router routed to an OpenAI cloud failed (found in a
live review). The router already makes up what a client leaves out where that loses
nothing (`router.translate.tool_ids`); here the id is not made up but read off the call
the result answers, which only the order of the messages says.

So only where that order says it without doubt: the tool messages right after an
assistant message with `tool_calls`, as many as its calls, none of them with an id (absent,
null or empty), every call with one. Any other history (fewer or more results than calls,
some results with ids, a call without one, a result after no calls) goes as sent, and the
backend refuses it in its own words. Not for vLLM (`router.vllm_fields.is_vllm`), which
takes the body as it came. Pure.
"""

from __future__ import annotations

from typing import Any


def with_call_ids(body: dict[str, Any]) -> dict[str, Any]:
    """The chat `body` with the ids of its tool results filled in from the calls before
    them, where they pair by position; `body` itself when nothing is filled."""
    messages = body.get("messages")
    # nearly every body has none to fill: the walk below is for llama-stack's (it runs on
    # every attempt at a backend not taken for vLLM)
    if not isinstance(messages, list) or not any(map(_bare_result, messages)):
        return body
    out, changed = list(messages), False
    for start, message in enumerate(messages):
        ids = _call_ids(message)
        if ids is None:
            continue
        results = _results_after(messages, start)
        if len(results) != len(ids) or any(_has_id(messages[i]) for i in results):
            continue
        for index, call_id in zip(results, ids, strict=True):
            out[index] = {**messages[index], "tool_call_id": call_id}
            changed = True
    return {**body, "messages": out} if changed else body


def _call_ids(message: Any) -> list[str] | None:
    """The ids of an assistant message's tool calls, in order; None unless it has calls
    and every one has an id."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return None
    calls = message.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        return None
    ids = [call.get("id") if isinstance(call, dict) else None for call in calls]
    named = [i for i in ids if isinstance(i, str) and i]
    return named if len(named) == len(ids) else None


def _results_after(messages: list[Any], start: int) -> list[int]:
    """The indexes of the tool messages that follow `messages[start]` without a break."""
    found: list[int] = []
    for index in range(start + 1, len(messages)):
        message = messages[index]
        if not (isinstance(message, dict) and message.get("role") == "tool"):
            break
        found.append(index)
    return found


def _bare_result(message: Any) -> bool:
    """A tool message without an id: the only kind ever filled in."""
    return isinstance(message, dict) and message.get("role") == "tool" and not _has_id(message)


def _has_id(message: dict[str, Any]) -> bool:
    """Whether a tool message carries an id of any kind: only an absent, null or empty one
    is filled in."""
    return message.get("tool_call_id") not in (None, "")
