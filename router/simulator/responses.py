"""OpenAI Responses (`/v1/responses`): text and function calls, streamed as typed events.

The stream ends with `response.completed` and no `[DONE]` (what Codex CLI expects); every
event carries a `sequence_number`. vLLM's response object has many more top-level fields
and no `error`, its text parts `logprobs: null` (`[]` while streaming), its messages `phase`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from itertools import count
from typing import Any

import orjson

from router.simulator import tokens
from router.simulator.errors import ApiError, Flavor
from router.simulator.generation import Ask, Choice, Generation, argument_pieces
from router.simulator.latest_ask import latest_ask
from router.simulator.openai_refusals import refuse
from router.simulator.prompt import Prompt
from router.simulator.structured import text_constraint
from router.simulator.turns import last_called, system_text
from router.simulator.unknown_arguments import refuse_unknown_responses
from router.simulator.wire import (
    Frame,
    Meta,
    bad_request,
    event,
    int_field,
    last_user_text,
    model_check,
    tool_spec,
)


def _input_text(items: Any) -> tuple[str, bool]:
    """The last user text and whether the input ends with a function call's output."""
    if isinstance(items, str):
        return items, False
    last = items[-1] if items and isinstance(items[-1], dict) else {}
    return last_user_text(items), last.get("type") == "function_call_output"


GRAMMAR_REFUSED = (
    "Custom tools with a grammar format are not supported; "
    "only free-form text custom tools are accepted."
)


def _grammar_tool(tool: Any) -> bool:
    """A custom tool constrained by a grammar (Codex's `apply_patch`), which vLLM refuses:
    the simulator ignored custom tools and answered (found in review). The router's own
    test (`router.translate.native_responses`) is the same, and not shared: the simulator
    stands for vLLM, and imports nothing of the router's translation, so that it is tested
    against vLLM's check and not against itself."""
    if not isinstance(tool, dict) or tool.get("type") != "custom":
        return False
    fmt = tool.get("format")
    return isinstance(fmt, dict) and fmt.get("type") == "grammar"


class ResponsesApi:
    name = "responses"
    id_prefix = "resp_"
    call_prefix = "call_"

    def flavor(self, profile: Flavor) -> Flavor:
        return profile

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask:
        tools = body.get("tools")
        if profile == "vllm" and isinstance(tools, list) and any(map(_grammar_tool, tools)):
            raise model_check(GRAMMAR_REFUSED, "tools")  # its request model's own check
        items = body.get("input")
        if not isinstance(items, str | list) or not items:
            raise bad_request("input: Field required", "input")
        model = body.get("model")
        if not isinstance(model, str):
            raise bad_request("model: Field required", "model")
        user, after_tool = _input_text(items)
        specs = tuple(
            tool_spec(t, "parameters", f"tools.{index}.parameters")
            for index, t in enumerate(body.get("tools") or [])
            if isinstance(t, dict) and t.get("type") == "function"
        )
        if profile == "cloud":  # OpenAI's refusals, after its refusal of a schema
            refuse_unknown_responses(body)
            refuse(body)
        instructions = body.get("instructions") if isinstance(body.get("instructions"), str) else ""
        messages = [{"content": items}] if isinstance(items, str) else items
        choice = body.get("tool_choice")
        named = choice.get("name") if isinstance(choice, dict) else None
        constraint = text_constraint(body, profile)
        latest = latest_ask(items if isinstance(items, list) else [], body, user, instructions)
        prompt = Prompt(
            user,
            specs,
            named if isinstance(named, str) else None,
            tools_disabled=choice == "none",
            after_tool_result=after_tool or latest.answered,
            tool_required=choice == "required",
            output_schema=constraint.schema,
            output_choice=constraint.choice,
            output_exclusive=constraint.exclusive,
            last_called=last_called(messages),
            system=system_text(messages, instructions),
            asked=latest.text,
        )
        return Ask(
            model=model,
            prompt=prompt,
            prompt_tokens=tokens.messages_tokens(messages, str(instructions)),
            max_tokens=int_field(body, "max_output_tokens", 1, profile),
            max_tokens_param="max_output_tokens",
            stream=bool(body.get("stream")),
            extra=_echoed(body),
            refusal=constraint.refusal,
        )

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]:
        out = self._response(meta, ask, "completed")
        out["output"] = self._items(meta, gen)
        out["usage"] = {
            "input_tokens": gen.prompt_tokens,
            # OpenAI's and vLLM's both count cache writes now (the openai SDK's `Response`
            # requires the field since 3.x)
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": gen.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": gen.prompt_tokens + gen.completion_tokens,
        }
        if meta.flavor == "vllm":
            out["usage"]["input_tokens_details"] |= _VLLM_INPUT_DETAILS
            out["usage"]["output_tokens_details"] |= _VLLM_OUTPUT_DETAILS
        if gen.choices[0].finish == "length":
            out["status"] = "incomplete"
            out["incomplete_details"] = {"reason": "max_output_tokens"}
        return out

    def _response(self, meta: Meta, ask: Ask, status: str) -> dict[str, Any]:
        """OpenAI's response object: every field it reads from the request echoed, its
        default when not asked (`text` too: a client reads its structured output by it)."""
        if meta.flavor == "vllm":
            return _vllm_response(meta, ask, status)
        echoed = ask.extra
        text = echoed["text"] if isinstance(echoed["text"], dict) else {}
        fmt = text.get("format")
        verbosity = {"verbosity": text["verbosity"]} if "verbosity" in text else {}
        return {
            "id": meta.id,
            "object": "response",
            "created_at": meta.created,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": echoed["instructions"],
            "max_output_tokens": ask.max_tokens,
            "model": meta.model,
            "output": [],
            "parallel_tool_calls": echoed["parallel_tool_calls"],
            "previous_response_id": echoed["previous_response_id"],
            "reasoning": echoed["reasoning"] or {"effort": None, "summary": None},
            "store": echoed["store"],
            "temperature": echoed["temperature"],
            "text": {"format": fmt if isinstance(fmt, dict) else {"type": "text"}} | verbosity,
            "tool_choice": echoed["tool_choice"] or "auto",
            "tools": echoed["tools"],
            "top_p": echoed["top_p"],
            "truncation": echoed["truncation"],
            "usage": None,
            "user": echoed["user"],
            "metadata": echoed["metadata"] or {},
        }

    def _items(self, meta: Meta, gen: Generation) -> list[dict[str, Any]]:
        choice = gen.choices[0]
        return _calls(meta, choice) if choice.tool_calls else [_message(meta, choice.text)]

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
        seq = count()

        def frame(kind: str, token: bool = False, **fields: Any) -> Frame:
            payload = {"type": kind, "sequence_number": next(seq)} | fields
            return event(kind, payload), token

        yield frame("response.created", response=self._response(meta, ask, "in_progress"))
        yield frame("response.in_progress", response=self._response(meta, ask, "in_progress"))
        if gen.choices[0].tool_calls:
            yield from _call_frames(frame, _calls(meta, gen.choices[0]))
        else:
            yield from _text_frames(frame, meta, gen)
        yield frame("response.completed", response=self.body(meta, gen, ask))


def _calls(meta: Meta, choice: Choice) -> list[dict[str, Any]]:
    """The output items of a tool-calling answer."""
    return [
        {
            "type": "function_call",
            "id": f"fc_{meta.id[5:]}_{i}",
            "call_id": meta.call_ids[i] if i < len(meta.call_ids) else f"call_{i}",
            "name": call.name,
            "arguments": call.arguments,
            "status": "completed",
        }
        for i, call in enumerate(choice.tool_calls)
    ]


def _call_frames(frame: Callable[..., Frame], items: list[dict[str, Any]]) -> Iterator[Frame]:
    for index, item in enumerate(items):
        added = item | {"arguments": ""}
        yield frame("response.output_item.added", output_index=index, item=added)
        where = {"item_id": item["id"], "output_index": index}
        for piece in argument_pieces(item["arguments"]):
            yield frame("response.function_call_arguments.delta", True, **where, delta=piece)
        arguments = item["arguments"]
        yield frame("response.function_call_arguments.done", **where, arguments=arguments)
        yield frame("response.output_item.done", output_index=index, item=item)


def _message(meta: Meta, text: str) -> dict[str, Any]:
    """The output item of a text answer."""
    vllm = meta.flavor == "vllm"
    part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": []}
    part["logprobs"] = None if vllm else []
    message: dict[str, Any] = {"type": "message", "id": f"msg_{meta.id[5:]}"}
    message["status"] = "completed"
    message |= {"role": "assistant", "content": [part]}
    return message | {"phase": None} if vllm else message


def _text_frames(frame: Callable[..., Frame], meta: Meta, gen: Generation) -> Iterator[Frame]:
    """A text answer's events: the item and part opened empty, the deltas as they are
    generated, then the whole text (read again once the last delta is out)."""
    shell = _message(meta, "")
    vllm = meta.flavor == "vllm"
    where = {"item_id": shell["id"], "output_index": 0, "content_index": 0}
    added = shell | {"content": []} | ({"status": "in_progress"} if vllm else {})
    yield frame("response.output_item.added", output_index=0, item=added)
    opened = shell["content"][0] | {"text": "", "logprobs": []}
    yield frame("response.content_part.added", **where, part=opened)
    for piece in gen.deltas(gen.choices[0]):
        yield frame("response.output_text.delta", True, **where, delta=piece, logprobs=[])
    item = _message(meta, gen.choices[0].text)
    part = item["content"][0]
    yield frame("response.output_text.done", **where, text=part["text"], logprobs=[])
    yield frame("response.content_part.done", **where, part=part)
    yield frame("response.output_item.done", output_index=0, item=item)


_VLLM_INPUT_DETAILS: dict[str, list[int]] = {
    "input_tokens_per_turn": [],
    "cached_tokens_per_turn": [],
}
_VLLM_OUTPUT_DETAILS = {
    "tool_output_tokens": 0,
    "output_tokens_per_turn": [],
    "tool_output_tokens_per_turn": [],
}
_FUNCTION_TOOL = (
    "name", "parameters", "strict", "type", "allowed_callers", "async", "defer_loading",
    "description", "output_schema",
)  # fmt: skip


MAX_STORED = 10_000  # response ids a simulator keeps; the oldest go first


class Stored:
    """The responses this server made, kept for a later `previous_response_id` as OpenAI
    keeps them (and vLLM with its store on), unless asked `store: false`. Only their ids: a
    turn that continues one is answered like any other. An id it never made (or forgot) is
    refused in the server's words: routed to a backend other than the one that stored
    turn 1, a conversation ends in that refusal."""

    def __init__(self) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()

    def keep(self, body: dict[str, Any], response_id: str) -> None:
        if body.get("store") is False:
            return
        self._ids[response_id] = None
        while len(self._ids) > MAX_STORED:
            self._ids.popitem(last=False)

    def check(self, body: dict[str, Any], voice: Flavor) -> None:
        previous = body.get("previous_response_id")
        if isinstance(previous, str) and previous not in self._ids:
            raise _unknown_response(previous, voice)


def _unknown_response(response_id: str, voice: Flavor) -> ApiError:
    """The answers to a `previous_response_id` the server does not hold: vLLM's
    (serving_responses.py), or OpenAI's 400 naming the field."""
    if voice != "vllm":
        message = f"Previous response with id '{response_id}' not found."
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": "previous_response_id",
            "code": "previous_response_not_found",
        }
        raw = orjson.dumps({"error": error})
        return ApiError(400, "bad_request", message, "previous_response_id", raw=raw)
    if not response_id.startswith("resp"):
        message = f"Invalid 'response_id': '{response_id}'. Expected an ID that begins with 'resp'."
        return ApiError(400, "bad_request", message, "response_id")
    return ApiError(404, "not_found", f"Response with id '{response_id}' not found.", "response_id")


def _echoed(body: dict[str, Any]) -> dict[str, Any]:
    """The request fields a response object echoes, as asked (None: not asked, or not of
    their type): each server fills in its own defaults."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]

    def asked(name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        value = body.get(name)
        return value if isinstance(value, kind) else default

    temperature, top_p = asked("temperature", (int, float)), asked("top_p", (int, float))
    return {
        "instructions": body.get("instructions"),
        "temperature": float(temperature) if temperature is not None else 1.0,
        "top_p": float(top_p) if top_p is not None else 1.0,
        "tool_choice": body.get("tool_choice"),
        "tools": tools,
        "text": asked("text", dict),
        "previous_response_id": asked("previous_response_id", str),
        "parallel_tool_calls": asked("parallel_tool_calls", bool, True),
        "metadata": asked("metadata", dict),
        "reasoning": asked("reasoning", dict),
        "store": asked("store", bool, True),
        "truncation": asked("truncation", str, "disabled"),
        "user": asked("user", str),
    }


def _vllm_response(meta: Meta, ask: Ask, status: str) -> dict[str, Any]:
    """vLLM's response object, in its key order (captured from 0.32)."""
    echoed = ask.extra
    return {
        "id": meta.id,
        "created_at": meta.created,
        "incomplete_details": None,
        "instructions": echoed.get("instructions"),
        "metadata": echoed["metadata"],
        "model": meta.model,
        "object": "response",
        "output": [],
        "parallel_tool_calls": echoed["parallel_tool_calls"],
        "temperature": echoed["temperature"],
        "tool_choice": echoed["tool_choice"] or ("auto" if echoed["tools"] else "none"),
        "tools": [_vllm_tool(tool) for tool in echoed["tools"]],
        "top_p": 1.0,
        "background": False,
        "max_output_tokens": ask.max_tokens,
        "max_tool_calls": None,
        "previous_response_id": echoed["previous_response_id"],
        "prompt": None,
        "reasoning": echoed["reasoning"],
        "service_tier": "auto",
        "status": status,
        "text": _vllm_text(echoed["text"]),
        "top_logprobs": None,
        "truncation": echoed["truncation"],
        "usage": None,
        "user": echoed["user"],
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "kv_transfer_params": None,
        "ec_transfer_params": None,
        "input_messages": None,
        "output_messages": None,
    }


def _vllm_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A function tool as vLLM echoes it, the openai SDK's `FunctionTool` dumped: every field
    in its order (tests/vllm/captures/responses_structured_with_tools_auto.json)."""
    if tool.get("type") != "function":
        return tool
    return {name: tool.get(name) for name in _FUNCTION_TOOL} | tool


def _vllm_text(text: dict[str, Any] | None) -> dict[str, Any] | None:
    """`text` as vLLM echoes it (`text=request.text`, its pydantic model dumped: checked
    against 0.32): None when not asked, else every field, a json_schema's in its order."""
    if text is None:
        return None
    fmt = text.get("format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        names = ("name", "schema", "type", "description", "strict")
        fmt = {name: fmt.get(name) for name in names}
    return {"format": fmt, "verbosity": text.get("verbosity")}
