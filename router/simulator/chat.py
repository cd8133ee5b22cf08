"""OpenAI Chat Completions, as vLLM and OpenAI put it on the wire (`/v1/chat/completions`).

vLLM and OpenAI differ in small ways that clients notice: vLLM's messages carry
`reasoning`/`tool_calls: []`, `stop_reason`, tool ids `chatcmpl-tool-…` and no
`service_tier`; OpenAI adds `service_tier`, `system_fingerprint`, usage details and `call_…` ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from router.simulator import tokens
from router.simulator.called_ids import called_ids, shown_id
from router.simulator.chat_deltas import call_id, deltas
from router.simulator.chat_logprobs import asked, listed, whole
from router.simulator.checks import check_chat, check_messages, continued, stop_strings
from router.simulator.errors import Flavor
from router.simulator.generation import Ask, Choice, Generation
from router.simulator.latest_ask import latest_ask
from router.simulator.openai_refusals import refuse_chat
from router.simulator.prompt import Prompt
from router.simulator.structured import FREE, Constraint, format_constraint
from router.simulator.turns import last_called, system_text
from router.simulator.unknown_arguments import refuse_unknown_chat
from router.simulator.wire import (
    DONE,
    Frame,
    Meta,
    bad_request,
    check_stops,
    check_temperature,
    choice_count,
    greedy_n,
    int_field,
    interleave,
    last_user_text,
    model_check,
    required,
    sse,
    tool_spec,
)


def _prompt(
    messages: list[Any],
    body: dict[str, Any],
    continues: str = "",
    constraint: Constraint = FREE,
) -> Prompt:
    specs = tuple(
        tool_spec(fn, "parameters", f"tools.{index}.function.parameters")
        for index, t in enumerate(body.get("tools") or [])
        if isinstance(t, dict) and isinstance(fn := t.get("function"), dict)
    )
    choice = body.get("tool_choice")
    forced = None
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        forced = choice["function"].get("name")
    last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    user = last_user_text(messages)
    latest = latest_ask(messages, body, user)
    return Prompt(
        user=user,
        tools=specs,
        forced_tool=forced,
        tools_disabled=choice == "none",
        after_tool_result=last.get("role") == "tool" or latest.answered,
        tool_required=choice == "required",
        continues=continues,
        output_schema=constraint.schema,
        output_choice=constraint.choice,
        output_exclusive=constraint.exclusive,
        last_called=last_called(messages),
        system=system_text(messages),
        # read only where a call may fill an id field: every earlier call is parsed
        shown_id=shown_id(called_ids(messages), user) if specs else None,
        asked=latest.text,
    )


def _check_tool_choice(body: dict[str, Any]) -> None:
    """vLLM's chat request model: a named `tool_choice` must name one of the `tools` (that
    one other than "none" needs `tools` is `checks.check_chat`'s). The simulator answered a
    named choice of no tool with a call of it, where vLLM refuses (found in review)."""
    choice, tools = body.get("tool_choice"), body.get("tools")
    function = choice.get("function") if isinstance(choice, dict) else None
    if not isinstance(function, dict) or not isinstance(tools, list):
        return
    named = [t["function"].get("name") for t in tools if isinstance(t, dict) and _has_function(t)]
    if function.get("name") not in named:
        raise model_check(
            "The tool specified in `tool_choice` does not match any of the specified `tools`",
            "tool_choice",
        )


def _has_function(tool: dict[str, Any]) -> bool:
    return isinstance(tool.get("function"), dict)


def _max_tokens_param(body: dict[str, Any]) -> str:
    """vLLM takes `max_completion_tokens` over `max_tokens` and names the one it took."""
    return "max_tokens" if body.get("max_completion_tokens") is None else "max_completion_tokens"


def usage(gen: Generation, flavor: Flavor) -> dict[str, Any]:
    out: dict[str, Any] = {
        "prompt_tokens": gen.prompt_tokens,
        "total_tokens": gen.prompt_tokens + gen.completion_tokens,
        "completion_tokens": gen.completion_tokens,
    }
    if flavor == "vllm":
        out |= {"prompt_tokens_details": None, "completion_tokens_details": None}
    else:
        out["prompt_tokens_details"] = {"cached_tokens": 0, "audio_tokens": 0}
        out["completion_tokens_details"] = {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
    return out


class ChatApi:
    name = "chat"
    id_prefix = "chatcmpl-"
    call_prefix = "chatcmpl-tool-"

    def flavor(self, profile: Flavor) -> Flavor:
        return profile

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask:
        check_chat(body, profile)
        if profile == "vllm":  # a named choice must name a tool sent
            _check_tool_choice(body)
        if profile == "cloud":  # OpenAI's refusals of an unknown field, of one of the wrong kind
            refuse_unknown_chat(body)
            refuse_chat(body)
        required(body, "messages", list, "messages: Field required (a non-empty list).")
        required(body, "model", str, "model: Input should be a valid string.")
        messages, model = body["messages"], body["model"]
        if not messages:
            raise bad_request("messages: Field required (a non-empty list).", "messages")
        check_messages(messages, profile)
        continues = continued(body, profile)
        constraint = format_constraint(body, profile)
        max_tokens = int_field(body, "max_completion_tokens", 1, profile) or int_field(
            body, "max_tokens", 1, profile
        )
        check_temperature(body.get("temperature"), profile)
        check_stops(body, "stop", profile)
        n = choice_count(body, profile)
        greedy_n(profile, body, n)
        stop = stop_strings(body, profile)
        options = body.get("stream_options")
        options = options if isinstance(options, dict) else {}
        tools_text = orjson.dumps(body["tools"]).decode() if body.get("tools") else ""
        return Ask(
            model=model,
            prompt=_prompt(messages, body, continues, constraint),
            prompt_tokens=tokens.messages_tokens(messages, tools_text),
            max_tokens=max_tokens,
            max_tokens_param=_max_tokens_param(body),
            ignore_eos=bool(body.get("ignore_eos")),
            n=n,
            stream=bool(body.get("stream")),
            include_usage=bool(options.get("include_usage")),
            # vLLM reads it only beside include_usage
            continuous_usage=bool(options.get("include_usage"))
            and bool(options.get("continuous_usage_stats")),
            stop=stop,
            refusal=constraint.refusal,
            extra=asked(body, profile),
        )

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]:
        vllm = meta.flavor == "vllm"
        choices = []
        for index, choice in enumerate(gen.choices):
            forced = _forced(meta, ask, choice)
            item: dict[str, Any] = {
                "index": index,
                "message": _message(meta, choice, index, forced),
                "logprobs": whole(meta, ask, choice),
                "finish_reason": _finish(ask, choice, forced),
            }
            if vllm:
                stop_reason = _stop_reason(ask, choice, forced)
                item |= {"stop_reason": stop_reason, "token_ids": None, "routed_experts": None}
            choices.append(item)
        out: dict[str, Any] = {
            "id": meta.id,
            "object": "chat.completion",
            "created": meta.created,
            "model": meta.model,
            "choices": choices,
        }
        out |= {"service_tier": None, "system_fingerprint": VLLM_FINGERPRINT} if vllm else CLOUD
        out["usage"] = usage(gen, meta.flavor)
        if vllm:
            out |= dict.fromkeys(_VLLM_TAIL)
        return out

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
        if meta.flavor == "vllm":
            return _vllm_frames(meta, gen, ask)
        return _cloud_frames(meta, gen, ask)


VLLM_FINGERPRINT = "vllm-0.32.0-sim"
EOS_TOKEN_ID = 0  # vLLM's `stop_reason` when a constrained answer ends (`_stop_reason`)
CLOUD = {"service_tier": "default", "system_fingerprint": "fp_sim0001"}
_VLLM_TAIL = (
    "prompt_logprobs",
    "prompt_token_ids",
    "prompt_text",
    "kv_transfer_params",
    "ec_transfer_params",
    "metrics",
)


def _forced(meta: Meta, ask: Ask, choice: Choice) -> bool:
    """A whole call vLLM was made to write (a named `tool_choice` or `"required"`): through
    structured output, which ends at a stop token; its message's content is "" (the call
    was generated as text, then moved to `tool_calls`)."""
    prompt = ask.prompt
    forced = bool(prompt.forced_tool) or prompt.tool_required
    return meta.flavor == "vllm" and bool(choice.tool_calls) and forced and choice.finish != "abort"


def _stop_reason(ask: Ask, choice: Choice, forced: bool) -> int | str | None:
    """vLLM's `stop_reason`: the `stop` string that ended the text; the stop token's id
    where structured output ended the answer whole (a forced call; JSON or a `choice`
    ended by itself, as vLLM 0.32's chat reported both); else None."""
    prompt = ask.prompt
    constrained = prompt.output_schema is not None or bool(prompt.output_choice)
    ended = choice.finish == "stop" and choice.stop_reason is None and not choice.tool_calls
    return EOS_TOKEN_ID if forced or (constrained and ended) else choice.stop_reason


def _finish(ask: Ask, choice: Choice, forced: bool) -> str:
    """A named call ends like text, "stop"; a required one says "tool_calls"."""
    return "stop" if forced and ask.prompt.forced_tool else choice.finish


def _vllm_frames(meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
    """vLLM's stream: no `usage: null`; text that `max_tokens` or a `stop` string cut
    ends in its last token's chunk, with the finish_reason (and the `stop` string); any
    other end (an EOS token, a tool call's end, which its parser shows nothing of, an
    abort) comes in a chunk of its own. With `continuous_usage_stats` every choice chunk
    carries its choice's running usage too."""
    head = {"id": meta.id, "object": "chat.completion.chunk", "created": meta.created}
    head["model"] = meta.model
    fingerprint = {} if ask.include_usage else {"system_fingerprint": VLLM_FINGERPRINT}
    made = [0] * len(gen.choices)  # each choice's tokens so far (`per_chunk` a delta)
    books = [listed(meta, ask, c) for c in gen.choices]  # their `logprobs`, where asked

    def running(index: int) -> dict[str, Any]:
        if not ask.continuous_usage:
            return {}
        prompt, count = gen.prompt_tokens, made[index]
        counts = {"prompt_tokens": prompt, "total_tokens": prompt + count}
        return {"usage": counts | {"completion_tokens": count}}

    def chunk(index: int, delta: dict[str, Any], finish: str | None, stop: int | str | None = None,
              lp: dict[str, Any] | None = None) -> bytes:  # fmt: skip
        choice = {"index": index, "delta": delta, "logprobs": lp, "finish_reason": finish}
        if finish:
            choice["stop_reason"] = stop
            made[index] = gen.choices[index].tokens
        out = head | {"choices": [choice | {"token_ids": None}]} | (fingerprint if finish else {})
        return sse(out | running(index))

    role = {"index": 0, "delta": {"role": "assistant", "content": ""}}
    for index in range(len(gen.choices)):
        first = head | {
            "choices": [role | {"index": index, "logprobs": None, "finish_reason": None}]
        }
        yield sse(first | {"prompt_token_ids": None, "prompt_text": None} | running(index)), False
    per_choice = [deltas(meta, gen, c, i) for i, c in enumerate(gen.choices)]
    rides = [not (c.tool_calls or c.cut_calls or c.own_finish) for c in gen.choices]
    spoke: set[int] = set()
    for index, (delta, quiet, size), final in interleave(per_choice):
        spoke.add(index)
        choice, book = gen.choices[index], books[index]
        made[index] = min(made[index] + gen.per_chunk, choice.tokens)
        for listing in book.quiet(quiet, gen.per_chunk):
            yield chunk(index, {}, None, None, listing), True
        lp = book.take(size)
        shown = delta != {"content": ""}  # a token that shows no text (held back for a
        # `stop` string) gets no chunk, but where its logprobs are listed (an empty delta),
        # and an empty delta if it ends the answer
        if final and rides[index]:
            finish, stop = choice.finish, choice.stop_reason
            yield chunk(index, delta if shown else {}, finish, stop, lp), True
        elif shown or lp is not None:
            yield chunk(index, delta if shown else {}, None, None, lp), True
    for index, choice in enumerate(gen.choices):
        if rides[index] and index in spoke:
            continue
        forced, book = _forced(meta, ask, choice), books[index]
        for listing in book.quiet(book.before_finish(), gen.per_chunk):  # a call's end
            yield chunk(index, {}, None, None, listing), True
        delta = {"content": ""} if choice.finish == "abort" else {}
        reason, lp = _stop_reason(ask, choice, forced), book.rest()
        yield chunk(index, delta, _finish(ask, choice, forced), reason, lp), False
    if ask.include_usage:
        totals = usage(gen, "vllm")
        totals.pop("prompt_tokens_details")
        totals.pop("completion_tokens_details")
        tail = head | {"choices": [], "usage": totals, "system_fingerprint": VLLM_FINGERPRINT}
        yield sse(tail), False
    yield DONE


def _cloud_frames(meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
    """OpenAI's stream: `usage: null` on every chunk when usage was asked for, and a final
    chunk with an empty delta and the finish_reason."""
    head = {"id": meta.id, "object": "chat.completion.chunk", "created": meta.created}
    head |= {"model": meta.model} | CLOUD

    books = [listed(meta, ask, c) for c in gen.choices]  # their `logprobs`, where asked

    def chunk(index: int, delta: dict[str, Any], finish: str | None = None, size: int = 0) -> bytes:
        lp = None if finish else books[index].take(size)  # none beside the finish
        choice = {"index": index, "delta": delta, "logprobs": lp, "finish_reason": finish}
        obj = head | {"choices": [choice]}
        if ask.include_usage:
            obj["usage"] = None
        return sse(obj)

    role = {"role": "assistant", "content": "", "refusal": None}
    for index in range(len(gen.choices)):
        yield chunk(index, role), False
    per_choice = [deltas(meta, gen, c, i) for i, c in enumerate(gen.choices)]
    for index, (delta, quiet, size), _ in interleave(per_choice):
        yield chunk(index, delta, size=quiet + size), True
    for index, choice in enumerate(gen.choices):
        yield chunk(index, {}, choice.finish), False
    if ask.include_usage:
        yield sse(head | {"choices": [], "usage": usage(gen, "cloud")}), False
    yield DONE


def _message(meta: Meta, choice: Choice, index: int, forced: bool) -> dict[str, Any]:
    calls = [
        {
            "id": call_id(meta, index, position),
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for position, c in enumerate(choice.tool_calls)
    ]
    content = None if choice.tool_calls else choice.text
    if forced:  # vLLM: the forced call's JSON was generated as text, then moved to tool_calls
        content = ""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if meta.flavor == "vllm":
        message |= {"annotations": None, "audio": None, "function_call": None}
        return message | ({"tool_calls": calls} if calls else {}) | {"reasoning": None}
    message["annotations"] = []
    if calls:
        message["tool_calls"] = calls
    return message
