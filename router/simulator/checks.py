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
from router.simulator.errors import Flavor
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
