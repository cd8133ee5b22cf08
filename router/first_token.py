"""The first token of a stream: which event first carries output, for time to first token.

A stream's first event is not its first token. Responses opens with `response.created`
and Messages with `message_start`, both sent before prefill ends: taking TTFT there
measured the connection, not the model, and left the prefill in the time per output token.
vLLM's chat sends a role chunk, which carries no token, with its first output
(`router.silence` reads it as the engine at work). TTFT (docs/metrics.md: arrival to the
first content byte sent) is taken at the first event with text, reasoning, a refusal or
tool-call arguments. A Messages stream translated from chat sends a `ping` for reasoning it
does not show, and for nothing else (`router.translate.anthropic_reply`): there, a ping is
the model's output; a native server's pings come before it, while a request waits too.
"""

from __future__ import annotations

from typing import Any

from router.record import Api

# Chat delta fields that carry generated tokens (`reasoning_content` is vLLM's and
# DeepSeek's reasoning, `reasoning` the newer spelling; `function_call` the deprecated
# `functions` API's call; `audio` an audio answer).
_CHAT_OUTPUT = (
    "content",
    "reasoning_content",
    "reasoning",
    "tool_calls",
    "refusal",
    "function_call",
    "audio",
)


def carries_output(api: Api, obj: dict[str, Any], translated: bool = False) -> bool:
    """Whether this stream event (a parsed `data:` object) holds generated output;
    `translated`: the router made it from a chat backend's stream."""
    kind = obj.get("type")
    if api == "messages":  # text, thinking or tool-input JSON; a translated stream's reasoning
        return kind == "content_block_delta" or (translated and kind == "ping")
    if api == "responses":  # output_text, reasoning, refusal, function-call arguments...
        return isinstance(kind, str) and kind.startswith("response.") and kind.endswith(".delta")
    for choice in obj.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        if choice.get("text"):  # a completions chunk
            return True
        delta = choice.get("delta")
        if isinstance(delta, dict) and any(delta.get(k) for k in _CHAT_OUTPUT):
            return True
    return False
