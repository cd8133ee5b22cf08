"""Anthropic Messages (`/v1/messages`, `/v1/messages/count_tokens`), as Anthropic serves it.

Streaming is the named-event sequence message_start, content_block_start, ping,
content_block_delta…, content_block_stop, message_delta (stop_reason, output usage),
message_stop; a tool call is a `tool_use` block filled by `input_json_delta` pieces.
vLLM serves the same API natively (so the vllm profile answers here too), its own way:
`chatcmpl-` ids, usage of input/output tokens only, no `stop_sequence` in the reply, no
`ping`, and `input_tokens` again in `message_delta`; a body failing its request model is
refused in FastAPI's OpenAI-style shape (see `errors`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from router.simulator import tokens, turns
from router.simulator.errors import Flavor, validation_error
from router.simulator.generation import Ask, Choice, Generation, argument_pieces
from router.simulator.latest_ask import latest_ask
from router.simulator.prompt import Prompt, ToolSpec
from router.simulator.wire import (
    Frame,
    Meta,
    bad_request,
    check_stops,
    check_temperature,
    event,
    last_user_text,
    lax_int,
    required,
    tool_spec,
)

_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}
# Anthropic's 400 for a body with both samplers, from Claude Sonnet 4.5 / Opus 4.1 on (the
# models its docs list now; older ones took both). The simulator refuses it for any model.
BOTH_SAMPLERS = (
    "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
)


def system_text(body: dict[str, Any]) -> str:
    return tokens.content_text(body.get("system"))


def prompt_tokens(body: dict[str, Any]) -> int:
    messages = body.get("messages") or []
    extra = system_text(body)
    if body.get("tools"):
        extra += orjson.dumps(body["tools"]).decode()
    return tokens.messages_tokens(messages if isinstance(messages, list) else [], extra)


def _last_is_tool_result(messages: list[Any]) -> bool:
    last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") == "tool_result" for p in content
    )


_EMPTY = (
    "messages: at least one message is required",
    "Cannot apply chat template to an empty conversation. Provide at least one message.",
)


def _max_tokens(body: dict[str, Any], profile: Flavor) -> int:
    """Required, an integer (vLLM's lax one, `wire.lax_int`), positive: vLLM's request model
    says which in pydantic's words."""
    value = body.get("max_tokens")
    if value is None:
        message = "max_tokens: Field required"
        raise validation_error(message, "max_tokens", "missing", "Field required", body)
    given = lax_int(body, "max_tokens", profile)
    if given is None or given < 1:
        message = f"max_tokens must be an integer >= 1, got {value!r}."
        why = ValueError("max_tokens must be positive")
        msg = f"Value error, {why}"
        raise validation_error(message, "max_tokens", "value_error", msg, value, error=why)
    return given


def _tools(body: dict[str, Any], profile: Flavor) -> tuple[ToolSpec, ...]:
    """The tools offered. vLLM's request model needs each one's `input_schema`: a server
    tool (`{"type": "web_search_20250305", "name": "web_search"}`) has none, and vLLM
    refuses the body; the simulator offered it with an empty schema and even called it
    (found in review)."""
    tools = [(i, t) for i, t in enumerate(body.get("tools") or []) if isinstance(t, dict)]
    for index, tool in tools:
        field = f"tools.{index}.input_schema"
        if profile == "vllm" and "input_schema" not in tool:
            message = f"{field}: Field required"
            raise validation_error(message, field, "missing", "Field required", tool)
        if profile == "vllm" and tool["input_schema"] is None:  # not optional: null is no dict
            msg = "Input should be a valid dictionary"
            raise validation_error(f"{field}: {msg}", field, "dict_type", msg, None)
    return tuple(tool_spec(t, "input_schema", f"tools.{i}.input_schema") for i, t in tools)


def _check_named(name: Any, specs: tuple[ToolSpec, ...]) -> None:
    """vLLM refuses a named `tool_choice` of a tool not offered, beside tools that are
    (its structured output finds no such tool), in its Anthropic envelope."""
    if name not in [spec.name for spec in specs]:
        raise bad_request(f"The tool with name '{name}' is not found in the tools list.")


class MessagesApi:
    name = "messages"
    id_prefix = "msg_"
    call_prefix = "toolu_"

    def flavor(self, profile: Flavor) -> Flavor:
        return "anthropic"

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask:
        # checked in the order of vLLM's request model, which reports the first that fails
        required(body, "model", str, "model: Field required")
        required(body, "messages", list, "messages: Field required")
        max_tokens = _max_tokens(body, profile)
        check_stops(body, "stop_sequences", profile)
        check_temperature(body.get("temperature"), profile)
        if profile == "anthropic" and None not in (body.get("temperature"), body.get("top_p")):
            raise bad_request(BOTH_SAMPLERS)  # Claude 4.5 on: one of the two
        model, messages = body["model"], body["messages"]
        if not messages:
            raise bad_request(_EMPTY[profile == "vllm"])
        specs = _tools(body, profile)
        choice = body.get("tool_choice") or {}
        kind = choice.get("type") if isinstance(choice, dict) else None
        forced = choice.get("name") if isinstance(choice, dict) else None
        if profile == "vllm" and kind == "tool" and specs:
            _check_named(forced, specs)
        user = last_user_text(messages)
        latest = latest_ask(messages, body, user, body.get("system"))
        prompt = Prompt(
            user,
            specs,
            forced,
            tools_disabled=kind == "none",
            after_tool_result=_last_is_tool_result(messages) or latest.answered,
            tool_required=kind == "any",
            last_called=turns.last_called(messages),
            system=turns.system_text(messages, body.get("system")),
            asked=latest.text,
        )
        return Ask(
            model=model,
            prompt=prompt,
            prompt_tokens=prompt_tokens(body),
            max_tokens=max_tokens,
            max_tokens_param="max_completion_tokens",  # vLLM serves Messages through chat
            stream=bool(body.get("stream")),
            stop=_stop_sequences(body, profile),
        )

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]:
        choice = gen.choices[0]
        out = _message(meta, gen, _blocks(meta, choice), _STOP[choice.finish])
        return out | _stopped_at(meta, choice)

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
        choice = gen.choices[0]
        vllm = meta.server == "vllm"
        start = _message(meta, gen, [], None)  # the text comes later, in deltas
        start["stop_sequence"] = None
        start["usage"] = _usage(meta, gen.prompt_tokens, 0 if vllm else 1)
        yield event("message_start", {"type": "message_start", "message": start}), False
        # a text block opens empty: its text is not generated yet
        blocks = _blocks(meta, choice) if choice.tool_calls else [{"type": "text", "text": ""}]
        for index, block in enumerate(blocks):
            empty: dict[str, Any] = {"input": {}} if block["type"] == "tool_use" else {"text": ""}
            opened = {"type": "content_block_start", "index": index, "content_block": block | empty}
            yield event("content_block_start", opened), False
            if index == 0 and not vllm:
                yield event("ping", {"type": "ping"}), False
            for delta in _deltas(gen, choice, block):
                payload = {"type": "content_block_delta", "index": index, "delta": delta}
                yield event("content_block_delta", payload), True
            stop = {"type": "content_block_stop", "index": index}
            yield event("content_block_stop", stop), False
        delta = {"stop_reason": _STOP[choice.finish], "stop_sequence": None}
        delta |= _stopped_at(meta, choice)
        used = {"input_tokens": gen.prompt_tokens} if vllm else {}
        used["output_tokens"] = gen.completion_tokens
        ending = {"type": "message_delta", "delta": delta, "usage": used}
        yield event("message_delta", ending), False
        yield event("message_stop", {"type": "message_stop"}), False


def _stop_sequences(body: dict[str, Any], profile: Flavor) -> tuple[str, ...]:
    """The `stop_sequences` strings (after `wire.check_stops`). vLLM refuses an empty one
    with its sampling parameters, as it does chat's `stop` (`checks.stop_strings`; it
    answered 200 here, found in review); elsewhere the empty ones are dropped: they would
    end every answer before its first token."""
    given = body.get("stop_sequences")
    strings = [s for s in given if isinstance(s, str)] if isinstance(given, list) else []
    if profile == "vllm" and "" in strings:
        raise bad_request("stop cannot contain an empty string.")
    return tuple(s for s in strings if s)


def _stopped_at(meta: Meta, choice: Choice) -> dict[str, Any]:
    """How a reply a stop sequence ended says so: Anthropic's `stop_reason` "stop_sequence"
    and the string in `stop_sequence`; vLLM says "end_turn", as for an end its model chose,
    and has no `stop_sequence` field (its Messages over chat map "stop" alone). The text
    ends where the string began, the string not in it (`generation.stopped`): Claude Code's
    security monitor stops its stage 1 at `</block>` (`security_monitor`)."""
    if choice.stop_reason is None or meta.server == "vllm":
        return {}
    return {"stop_reason": "stop_sequence", "stop_sequence": choice.stop_reason}


def _message(
    meta: Meta, gen: Generation, content: list[dict[str, Any]], stop_reason: str | None
) -> dict[str, Any]:
    """The message object: the whole reply, or (streamed) its opening without content."""
    out = {
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(meta, gen.prompt_tokens, gen.completion_tokens),
    }
    if meta.server == "vllm":
        del out["stop_sequence"]
    return out


def _usage(meta: Meta, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    if meta.server == "vllm":
        return {"input_tokens": input_tokens, "output_tokens": output_tokens}
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    }


def _blocks(meta: Meta, choice: Choice) -> list[dict[str, Any]]:
    if not choice.tool_calls:
        return [{"type": "text", "text": choice.text}]
    return [
        {
            "type": "tool_use",
            "id": meta.call_ids[i] if i < len(meta.call_ids) else f"toolu_{i}",
            "name": call.name,
            "input": orjson.loads(call.arguments),
        }
        for i, call in enumerate(choice.tool_calls)
    ]


def _deltas(gen: Generation, choice: Choice, block: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if block["type"] == "text":
        return ({"type": "text_delta", "text": piece} for piece in gen.deltas(choice))
    arguments = orjson.dumps(block["input"]).decode()
    return ({"type": "input_json_delta", "partial_json": p} for p in argument_pieces(arguments))
