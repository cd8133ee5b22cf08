"""How much a request asks for: its prompt in estimated tokens, the output it may take
(`output_limit`), whether it asks for several choices and how many (`choices_asked`).

Estimates count characters of the text parts, not a JSON dump, so a 200k-token body costs
little; the backend's usage replaces them once it answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from router.record import Api

_CHARS_PER_TOKEN = 4  # a deliberately rough estimate; the backend's usage replaces it


def estimate_prompt_tokens(api: Api, body: dict[str, Any]) -> int:
    """Count characters of the text parts, not a JSON dump: cheap even for 200k tokens."""
    chars = 0
    if api == "completions":
        prompt = body.get("prompt")
        chars = len(prompt) if isinstance(prompt, str) else sum(len(str(p)) for p in prompt or ())
        return chars // _CHARS_PER_TOKEN + 1
    if api in ("messages", "responses"):
        chars = _agent_chars(body)
        if body.get("tools"):
            chars += len(orjson.dumps(body["tools"]))
        return chars // _CHARS_PER_TOKEN + 1
    for message in body.get("messages") or ():
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    chars += len(part["text"])
        chars += 16 + _tool_call_chars(message.get("tool_calls"))  # role and framing
    for schemas in ("tools", "functions"):  # `functions`: the deprecated form, as long
        if body.get(schemas):
            chars += len(orjson.dumps(body[schemas]))
    return chars // _CHARS_PER_TOKEN + 1


def _tool_call_chars(calls: Any) -> int:
    """An assistant turn's tool calls: in an agent's tool loop, their arguments are much of
    the prompt (the content is null)."""
    if not isinstance(calls, list):
        return 0
    chars = 0
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            chars += 16 + _text_chars(function.get("name")) + _text_chars(function.get("arguments"))
    return chars


def _agent_chars(body: dict[str, Any]) -> int:
    """Text of a Messages or Responses body: tool results and calls count too (agents' bulk)."""
    chars = sum(_text_chars(body.get(key)) for key in ("system", "instructions"))
    turns = body.get("messages") if "messages" in body else body.get("input")
    if isinstance(turns, str):
        return chars + len(turns)
    for turn in turns or ():
        if isinstance(turn, dict):
            chars += 16 + _text_chars(turn.get("content"))
            for key in ("arguments", "output", "input"):
                chars += _text_chars(turn.get(key))
    return chars


def _text_chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return len(orjson.dumps(value))
    if not isinstance(value, list):
        return 0
    chars = 0
    for part in value:
        if isinstance(part, dict):
            for key in ("text", "content", "input", "thinking"):
                chars += _text_chars(part.get(key))
    return chars


def estimate_tokens(chars: int) -> int:
    return (chars + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


# The fields that limit the output, per API, the first set deciding. Chat's
# `max_completion_tokens` first, as vLLM and OpenAI honour it over `max_tokens` (found in
# review); Messages and Responses read only their own: a stray chat field, never forwarded
# by the translation, was refused as over the window (found in review).
OUTPUT_LIMITS: dict[Api, tuple[str, ...]] = {
    "chat": ("max_completion_tokens", "max_tokens"),
    "completions": ("max_tokens",),
    "messages": ("max_tokens",),
    "responses": ("max_output_tokens",),
}


@dataclass(frozen=True, slots=True)
class Counts:
    """A context refusal's numbers, each None when not known: the prompt's tokens, the
    output limit asked, the window. Read from a refusal's words
    (`router.translate.context_refusal.counts`), or the router's own, which it keeps out of
    the words an OpenAI client reads (`BadRequestTooLong.sizes`, `ContextTooLong.sizes`)."""

    prompt: int | None = None
    output: int | None = None
    limit: int | None = None


def output_limit(api: Api, body: dict[str, Any]) -> tuple[str, int] | None:
    """The field that limits the output, and its value. A `null` one (some clients send
    `max_completion_tokens: null` beside `max_tokens`) is unset, not the end of the search."""
    for field in OUTPUT_LIMITS[api]:
        value = body.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            return field, value
    return None


def max_tokens_of(api: Api, body: dict[str, Any]) -> int | None:
    limit = output_limit(api, body)
    return limit[1] if limit else None


def several_choices(api: str, body: dict[str, Any]) -> bool:
    """Whether a chat request may ask for more than one choice: an `n` above 1 as a lax
    upstream reads it (`2.0` and `"2"` are 2, `"1"` and `1.0` one, found in review), or one
    it cannot read as a number; 0 or less is the backend's to refuse (the Messages and
    Responses translators drop `n`; `/v1/completions` has its own check)."""
    if api != "chat" or body.get("n") is None:
        return False
    n = _lax_int(body["n"])
    return n is None or n > 1


def choices_asked(api: Api, body: dict[str, Any]) -> int:
    """How many choices a chat or completions stream answers: `n` as a lax upstream reads
    it (`several_choices`; 1 when absent, and when unreadable or below 1: the backend refuses),
    times the prompts of a `/v1/completions` batch (a list of strings or of token lists: a
    choice per prompt and `n`, as vLLM and OpenAI number them; a list of token ids is one
    prompt). A stream that ended without [DONE] is whole only once that many choices said
    why they stopped (`router.answer_end`). 1 for the other APIs (their translators drop `n`)."""
    if api not in ("chat", "completions"):
        return 1
    n = _lax_int(body["n"]) if body.get("n") is not None else None
    n = n if n is not None and n > 0 else 1
    prompt = body.get("prompt") if api == "completions" else None
    if isinstance(prompt, list) and prompt and all(isinstance(p, str | list) for p in prompt):
        return n * len(prompt)
    return n


def _lax_int(value: Any) -> int | None:
    """`value` as a lax reader of an integer field takes it (pydantic's lax mode, vLLM's):
    an int or bool, a float without a fraction, a string of either; else None."""
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
