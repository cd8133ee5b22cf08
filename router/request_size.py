"""How much a request asks for: its prompt in estimated tokens, the output it may take
(`output_limit`), whether it asks for several choices and how many (`choices_asked`).

Estimates count characters of the text parts, not a JSON dump, so a 200k-token body costs
little; the backend's usage replaces them once it answers. Two estimates of the prompt: the
whole request's (`estimate_prompt_tokens`: what the usage says when the backend's does not)
and the one a context window must hold (`window_prompt_tokens`), which differ for a
`/v1/completions` batch: the backend reads each of its prompts on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import orjson

from router.record import Api
from router.translate.tool_search import offered

_CHARS_PER_TOKEN = 4  # a deliberately rough estimate; the backend's usage replaces it


def estimate_prompt_tokens(api: Api, body: dict[str, Any], every_tool: bool = False) -> int:
    """The whole request's prompt, in tokens: a `/v1/completions` batch's prompts summed, as
    the backend's usage counts them. What a record says (ledger, metrics, cost) when the
    backend's usage does not; a window check wants `window_prompt_tokens`. Counts characters
    of the text parts, not a JSON dump: cheap even for 200k tokens.

    A Messages body's tools count as a chat backend is offered them (`tool_search.offered`):
    a deferred tool once a reference loaded it, as Anthropic's own API shows it too. All 300
    of Claude Code's deferred MCP tools counted, a prompt of about 100 tokens was estimated at
    120,756, and local's window of 65,536 was skipped or the request refused as too long
    (found in review). `every_tool=True` counts them all: what a backend that speaks Messages
    itself and renders every tool it is sent (vLLM's) reads (`window_tokens`)."""
    if api == "completions":
        return max(sum(_completion_prompts(body.get("prompt"))), 1)
    chars = 0
    if api in ("messages", "responses"):
        chars = _agent_chars(body)
        tools = body.get("tools")
        if tools and api == "messages" and not every_tool and isinstance(tools, list):
            tools = offered(tools, body.get("messages"))
        if tools:
            chars += len(orjson.dumps(tools))
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


def window_prompt_tokens(api: Api, body: dict[str, Any]) -> int:
    """The prompt a backend's context window must hold, with the output limit, in tokens:
    a `/v1/completions` batch's longest prompt, as vLLM checks each prompt of a batch
    against the window on its own (`max_tokens` is each prompt's); the whole request on the
    other APIs (`estimate_prompt_tokens`). The batch summed, a lm-eval batch of prompts that
    each fit was refused as over the window, or sent past the local backend (found in
    review). What routing skips a backend by (`router.policy.Demand.prompt_tokens`) and a
    refusal of length names."""
    if api == "completions":
        return max(_completion_prompts(body.get("prompt")), default=1)
    return estimate_prompt_tokens(api, body)


def window_tokens(api: Api, body: dict[str, Any]) -> tuple[int, int | None]:
    """`window_prompt_tokens`, and the prompt a backend that renders every tool it is sent
    (vLLM's `/v1/messages`, `vllm_fields.reads_every_tool`) must hold where it differs: with
    the deferred tools no search loaded, which the chat translation and Anthropic's own API
    leave out. None for any other request (`router.policy.Demand.native_prompt_tokens`).
    One reading of the body: counted apart, a deferred body's history and tools were read
    twice, 0.80 ms of a 1 MB body's estimate became 1.70 (found in review)."""
    tools = body.get("tools")
    if api != "messages" or not isinstance(tools, list):
        return window_prompt_tokens(api, body), None
    shown = offered(tools, body.get("messages"))
    if len(shown) == len(tools):
        return window_prompt_tokens(api, body), None
    chars = _agent_chars(body)
    seen = len(orjson.dumps(shown)) if shown else 0  # as `estimate_prompt_tokens` counts
    loaded = {id(t) for t in shown}
    hidden = len(orjson.dumps([t for t in tools if id(t) not in loaded]))
    every = hidden + (seen - 1 if shown else 0)  # `[a]` and `[b]`: `[a,b]`, a character more
    return (chars + seen) // _CHARS_PER_TOKEN + 1, (chars + every) // _CHARS_PER_TOKEN + 1


def _completion_prompts(prompt: Any) -> list[int]:
    """Each prompt of a `/v1/completions` `prompt`, in estimated tokens: a string by its
    characters; token ids by their number (`len`, never their digits: counted by `str()`,
    an id was 1.25 to 2 tokens, and a 6 MB batch of a million ids took 240 ms of the event
    loop); a list of
    strings or of token-id lists, each of its items a prompt. A list whose first item is
    neither is one prompt of token ids (an item of another kind is the backend's to
    refuse). Linear in the number of prompts, not in their tokens."""
    if isinstance(prompt, str):
        return [_text_tokens(prompt)]
    if not isinstance(prompt, list) or not prompt:
        return []
    if not isinstance(prompt[0], str | list):
        return [len(prompt)]  # one prompt of token ids
    return [_text_tokens(p) if isinstance(p, str) else _ids(p) for p in prompt]


def _text_tokens(text: str) -> int:
    return len(text) // _CHARS_PER_TOKEN + 1


def _ids(prompt: Any) -> int:
    """One prompt of a batch that is not a string: a list of token ids, counted by its
    length; anything else one token (the backend refuses it)."""
    return len(prompt) if isinstance(prompt, list) else 1


def _tool_call_chars(calls: Any) -> int:
    """An assistant turn's tool calls: in an agent's tool loop, their arguments are much of
    the prompt (the content is null)."""
    if not isinstance(calls, list):
        return 0
    framed = (c for c in calls if isinstance(c, dict) and isinstance(c.get("function"), dict))
    return sum(16 + generated_call_chars(call) for call in framed)


def generated_call_chars(call: Any) -> int:
    """The characters the model generated for one chat tool call, or one fragment of a
    streamed one: its function's name and arguments text, nothing of the JSON around them.
    The output's estimate counted each streamed fragment's whole JSON (`id`, `type`,
    `index`, the key names): 62 tokens for a call of 19 (found in a live review). Reads the
    two fields, never serialises the fragment: it runs once per chunk."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return 0
    return _text_chars(function.get("name")) + _text_chars(function.get("arguments"))


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
    """Whether a chat request asks for more than one choice: `n` above 1. Every body read here
    passed `router.request.validate`, which refuses an `n` that is no integer from 1 to 128
    (`router.chat_checks.check_choices`), so `n` is an integer or absent: the lax reading a
    vLLM upstream makes (`2.0` and `"2"` as 2, found in review) was kept here until then, and
    reached no client's body since (dropped in review). One that is no integer all the same
    is taken as asking several, the plan's careful side. The Messages and Responses
    translators drop `n`; `/v1/completions` has its own check."""
    if api != "chat" or body.get("n") is None:
        return False
    n = body["n"]
    return not _an_int(n) or n > 1


def choices_asked(api: Api, body: dict[str, Any]) -> int:
    """How many choices a chat or completions stream answers: `n` (1 when absent; the router
    refuses any `n` but an integer from 1 to 128 before the plan, `router.chat_checks`),
    times the prompts of a `/v1/completions` batch (a list of strings or of token lists: a
    choice per prompt and `n`, as vLLM and OpenAI number them; a list of token ids is one
    prompt). A stream that ended without [DONE] is whole only once that many choices said
    why they stopped (`router.answer_end`). 1 for the other APIs (their translators drop `n`)."""
    if api not in ("chat", "completions"):
        return 1
    given = body.get("n")
    n = given if _an_int(given) and given > 0 else 1
    prompt = body.get("prompt") if api == "completions" else None
    if isinstance(prompt, list) and prompt and all(isinstance(p, str | list) for p in prompt):
        return n * len(prompt)
    return n


def _an_int(value: Any) -> TypeGuard[int]:
    """An integer, which JSON's `true` is not."""
    return isinstance(value, int) and not isinstance(value, bool)
