"""What the translators share: typed SSE framing, reading a chat choice, chat's token limit
and stream fields."""

from __future__ import annotations

from typing import Any

import orjson

from router.sse import Built

# The token limit a translated chat request carries: the name every server that speaks chat
# reads (Ollama ignores `max_completion_tokens`). OpenAI's own API, whose reasoning models
# refuse it, gets the newer name from its adapter (`backends.openai_compatible`).
MAX_TOKENS = "max_tokens"

# The chat finish reasons that say a token limit cut the answer: OpenAI's "length" (the
# output limit) and Mistral's "model_length" (the context window: its API's FinishReason is
# stop, length, model_length, error, tool_calls). Each is the client API's own cut: Messages'
# `max_tokens`, an incomplete Response for `max_output_tokens`; read as an end, a cut answer
# reached Claude Code and Codex as complete.
LIMIT_REASONS = frozenset({"length", "model_length"})


def streamed(stream: bool | None) -> dict[str, Any]:
    """The fields of a translated chat request asked to stream, the same for Messages and
    Responses: with the usage chunk, which OpenAI and vLLM send only when asked and the
    translated reply (and the ledger) take the counts from; none for a whole reply, which
    carries its usage in its body."""
    return {"stream": True, "stream_options": {"include_usage": True}} if stream else {}


def named_event(name: str, payload: dict[str, Any]) -> Built:
    """One typed SSE event (`event:` line then `data:`), as Anthropic and Responses send;
    it carries `payload`, which the relay reads instead of decoding the event (`Built`)."""
    event = Built(b"event: " + name.encode() + b"\ndata: " + orjson.dumps(payload) + b"\n\n")
    event.payload = payload
    return event


def first_choice(chunk: dict[str, Any]) -> dict[str, Any]:
    """The first choice, or {} (the usage chunk has `choices: []`, see FACTS.md)."""
    choices = chunk.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return {}


def finish_reasons(chat: Any) -> list[str]:
    """The finish reasons that are text a chat reply or chunk says, one per choice that
    ended, whatever its shape (a canary's reply is read before anything checked it): what
    the span of an attempt, a canary call or a shadow replay says the backend answered,
    whatever the translation sent the client for it."""
    choices = chat.get("choices") if isinstance(chat, dict) else None
    if not isinstance(choices, list):
        return []
    said = (c.get("finish_reason") for c in choices if isinstance(c, dict))
    return [reason for reason in said if isinstance(reason, str)]


def final_usage(chunk: dict[str, Any], answering: bool) -> bool:
    """Whether `chunk`'s usage is the whole count: the usage chunk's (no choices), or one
    that came with or after the finish reason. vLLM's `continuous_usage_stats` puts a running
    count on every chunk: one mid-answer (`answering`) is not whole, as a stream cut after it
    had generated more, so the ledger takes the larger of it and its estimate instead."""
    return not chunk.get("choices") or not answering


def content_text(content: Any, joined_by: str = "") -> str:
    """The text of a chat message's or delta's `content`: a string as it is, a list of
    parts (a user's `{"type": "text"}` parts; Mistral's Magistral models answer
    `[{"type": "thinking", "thinking": [...]}, {"type": "text", "text": "..."}]`, whole and
    streamed) as its text parts joined. Thinking parts are reasoning (`reasoning_text`), no
    part of the answer; anything else is no text (`str()` of the
    list was its repr). A reply's parts are pieces of one text; a user's are separate texts
    (a reminder, then the ask), which `joined_by="\n"` keeps from running together. A
    Responses message's content is read by `text_parts.content_text`."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = (part for part in content if isinstance(part, dict) and part.get("type") == "text")
    texts = (part.get("text") for part in parts)
    return joined_by.join(text for text in texts if isinstance(text, str))


def reasoning_text(part: Any) -> str:
    """The reasoning in a chat message or delta (a Responses reply shows it as a reasoning
    item, a Messages one does not, `anthropic_reply` says why): vLLM's
    `reasoning` (FACTS.md), else the `reasoning_content` vLLM sent before 2026 and DeepSeek's
    API and SGLang still send (one of them: a server may send the same text under both),
    and the thinking parts of a `content` list (Magistral's, `content_text`)."""
    if not isinstance(part, dict):
        return ""
    for key in ("reasoning", "reasoning_content"):
        text = part.get(key)
        if isinstance(text, str) and text:
            return text
    content = part.get("content")
    if not isinstance(content, list):
        return ""
    parts = (p for p in content if isinstance(p, dict) and p.get("type") == "thinking")
    return "".join(content_text(p.get("thinking")) for p in parts)


def arguments_text(arguments: Any) -> str:
    """A chat tool call's `function.arguments` as the JSON text OpenAI sends: a string as it
    came; any other JSON value encoded. TGI and llama.cpp's server (`--tool-args-object`)
    send the arguments as an object: `str()` of it was its Python repr (`{'city': 'Paris'}`,
    no JSON), and a stream dropped it. None is none (""), as is a value orjson cannot write
    (nested deeper than its 254 levels)."""
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    try:
        return orjson.dumps(arguments).decode()
    except orjson.JSONEncodeError:
        return ""


def parse_arguments(arguments: str) -> dict[str, Any]:
    """A tool call's JSON arguments as an object; a model's broken JSON is kept, not lost."""
    try:
        value = orjson.loads(arguments or "{}")
    except orjson.JSONDecodeError:
        return {"_raw_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def wraps(arguments: str) -> bool:
    """Whether `parse_arguments` wraps these arguments (they are no JSON object): a shadow
    comparison reads a wrapped input as the text it wraps, and only a wrapped one (a tool
    whose one argument is `value` has `{"value": 5}` as its own)."""
    try:
        return not isinstance(orjson.loads(arguments or "{}"), dict)
    except orjson.JSONDecodeError:
        return True


def tool_input(arguments: str) -> str:
    """A tool call's arguments as the JSON text of the input a client is given: as they came
    when they are an object, else the object `parse_arguments` makes of them (a whole reply's
    input). A streaming client parses what it is sent (the `anthropic` SDK raised on a small
    model's `{"city": Paris}`, losing the turn), so it gets no JSON that does not parse."""
    try:
        value = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        value = None
    if isinstance(value, dict):
        return arguments
    return orjson.dumps(parse_arguments(arguments)).decode()
