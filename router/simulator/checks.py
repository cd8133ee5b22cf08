"""What vLLM refuses in a chat or completions body before it generates, in its own words.

Its request models check some fields against others (`tools` and `tool_choice`,
`structured_outputs` and both (`structured.check_count`), `top_logprobs` and `logprobs`,
`stream_options` and `stream`) before they read any field,
in the reverse of the order they define the checks (`continue_final_message` beside
`add_generation_prompt` first); a `stop` list is then a field of at
most `VLLM_MAX_STOP_STRINGS` (4) items (`wire.check_stops`); an empty stop string is refused
with the sampling parameters. The cloud profile lets all of these through, as the simulator
always has.
"""

from __future__ import annotations

from typing import Any

from router.simulator.chat_logprobs import check_vllm
from router.simulator.errors import ApiError, Flavor, validation_error
from router.simulator.message_union import content_not_text, listed_tool_calls, not_a_message
from router.simulator.openai_shape import wrong_kind
from router.simulator.structured import check_count
from router.simulator.tokens import content_text
from router.simulator.wire import bad_request, model_check


def check_chat(body: dict[str, Any], profile: Flavor) -> None:
    """A chat body's checks across fields (vLLM's `check_generation_prompt`,
    `check_tool_usage`, `check_structured_outputs_count`, `check_logprobs`,
    `validate_stream_options`, which run in that order)."""
    if profile != "vllm":
        return
    if body.get("continue_final_message") and body.get("add_generation_prompt"):
        # a plain ValueError of its chat request model: no `parameter`
        raise bad_request(
            "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
        )
    if body.get("tools") == []:
        message = (
            "`tools` must not be an empty array. "
            "Either provide at least one tool or omit the field entirely."
        )
        raise model_check(message, "tools")
    choice = body.get("tool_choice")
    if choice is not None and choice != "none" and body.get("tools") is None:
        raise model_check("When using `tool_choice`, `tools` must be set.", "tool_choice")
    check_count(body, "chat")
    check_vllm(body)  # `top_logprobs`
    check_stream_options(body, profile)


def check_messages(messages: list[Any], profile: Flavor) -> None:
    """The shape of each chat message the simulator reads: an object, its `content` a string,
    an array of parts or null, its `tool_calls` an array of objects. A part is an object;
    on vLLM a plain string too (its message's content union takes `str` parts, and
    `chat_utils._parse_chat_message_content_part` reads them as text), where OpenAI
    refuses one. One malformed
    field crashed the simulator (`tool_calls: 5`, a 500 the router counts against the
    backend: three such requests opened both circuits of the demo router, found in review),
    where every server refuses it with a 400. vLLM's request model refuses it in pydantic's
    words (`vllm`: its validation handler's body, an error for each branch of its message
    union, `message_union`, after its `tool_calls` made lists); the others in OpenAI's
    (`invalid_type`, `messages[N].<field>`: the cloud profile's table says it first of
    `tool_calls`, `openai_refusals.MESSAGE`)."""
    if profile == "vllm":
        listed_tool_calls(messages)
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            if profile == "vllm":
                raise not_a_message(index, message)
            raise _malformed(profile, messages, (index,), "dict", "an object")
        content = message.get("content")
        if content is not None and not isinstance(content, str | list):
            if profile == "vllm" and not isinstance(content, dict):  # an object: its keys
                raise content_not_text(index, message)
            raise _malformed(profile, messages, (index, "content"), "list", _TEXT_OR_PARTS)
        for place, part in enumerate(content if isinstance(content, list) else []):
            if not isinstance(part, dict) and not (profile == "vllm" and isinstance(part, str)):
                raise _malformed(profile, messages, (index, "content", place), "dict", "an object")
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise _malformed(profile, messages, (index, "tool_calls"), "list", _OBJECTS)
        for place, call in enumerate(calls or []):
            if not isinstance(call, dict):
                raise _malformed(
                    profile, messages, (index, "tool_calls", place), "dict", "an object"
                )


_TEXT_OR_PARTS, _OBJECTS = "one of a string or array of objects", "an array of objects"
# pydantic's words for a value not of the kind it expects, by the kind
_PYDANTIC = {"dict": "Input should be a valid dictionary", "list": "Input should be a valid list"}


def _malformed(
    profile: Flavor, messages: list[Any], where: tuple[int | str, ...], kind: str, said: str
) -> ApiError:
    """The refusal of the value at `where` in `messages`: vLLM's validation error naming
    `messages.2.tool_calls`, or OpenAI's `invalid_type` naming `messages[2].tool_calls`."""
    value: Any = messages
    for step in where:
        value = value[step]
    if profile == "vllm":
        field = ".".join(["messages", *map(str, where)])
        message = f"{field}: {_PYDANTIC[kind]}"
        return validation_error(message, field, f"{kind}_type", _PYDANTIC[kind], value)
    param = "messages" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in where)
    return wrong_kind(value, param, said)


def check_stream_options(body: dict[str, Any], profile: Flavor) -> None:
    """`stream_options` only on a stream (chat and completions alike)."""
    if profile == "vllm" and body.get("stream_options") and not body.get("stream"):
        message = "Stream options can only be defined when `stream=True`."
        raise model_check(message, "stream_options")


def stop_strings(body: dict[str, Any], profile: Flavor) -> tuple[str, ...]:
    """The `stop` strings (a string or a list of them), after `wire.check_stops`. vLLM refuses
    an empty one with the sampling parameters; elsewhere it is dropped (it would end every
    answer before its first token)."""
    stop = body.get("stop")
    given = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    strings = tuple(s for s in given if isinstance(s, str))
    if profile == "vllm" and "" in strings:
        raise bad_request("stop cannot contain an empty string.")
    return tuple(s for s in strings if s)


def continued(body: dict[str, Any], profile: Flavor) -> str:
    """The text of the last message, when vLLM is asked to continue it
    (`continue_final_message`, a prefill) rather than to write a new turn; "" otherwise.
    `add_generation_prompt` left out is true, its default: the request model lets that by
    (`check_chat` reads only the two sent), and the chat template's renderer (transformers'
    `apply_chat_template`) refuses it in these words. Only the assistant's message can be
    continued: vLLM's Rust chat frontend refuses the rest (`ChatRequest::validate`, its
    words); its Python one leaves that to the chat template. The cloud profile reads no
    such field, as OpenAI has no prefill."""
    if profile != "vllm" or not body.get("continue_final_message"):
        return ""
    if body.get("add_generation_prompt", True):
        raise bad_request(_TEMPLATE_REFUSAL)
    messages = body.get("messages")
    last = messages[-1] if isinstance(messages, list) and messages else None
    if not isinstance(last, dict) or last.get("role") != "assistant":
        raise bad_request(
            "cannot continue the final message when the last message is not from the assistant"
        )
    return content_text(last.get("content"))


_TEMPLATE_REFUSAL = (
    "continue_final_message and add_generation_prompt are not compatible. Use "
    "continue_final_message when you want the model to continue the final message, and "
    "add_generation_prompt when you want to add a header that will prompt it to start a new "
    "assistant message instead."
)
