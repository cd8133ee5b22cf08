"""What makes a 200 reply, or one event of a stream, a failure: an answer stopped short
(`unfinished`), choices no client can read (`misshapen`), a whole reply that is no JSON
object (`reply_object`), that is an error and no answer (`whole_error`) or that holds no
answer at all (`no_answer`); `whole_failure` checks a whole chat or completions reply for
them all.

Apart from `router.upstream_errors`, which types the upstream's error replies: these are
replies the upstream sent as answers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import orjson

from router.attempt_errors import Cut, Malformed, UpstreamError
from router.retry_words import stopped_by_backend
from router.upstream_errors import in_band

# Chat finish reasons that say the answer was stopped, not finished: vLLM's and SGLang's
# "abort" (the engine dropped the request: shutdown, sleep, scale-down; vLLM then still
# sends [DONE], vLLM issue #57082), vLLM's "error", DeepSeek's "insufficient_system_resource".
# Other reasons outside OpenAI's list are ends: Together's "eos", older TGI's "eos_token".
UNFINISHED = frozenset({"abort", "error", "insufficient_system_resource"})


def unfinished(reply: dict[str, Any], backend: str) -> UpstreamError | None:
    """The error when a chat reply or chunk ends a choice with an `UNFINISHED` reason, or
    with one that is not text: no client reads `["stop"]`, and testing it against the set
    raised TypeError, a 500 of the router's own (found in review)."""
    choices = reply.get("choices")
    for choice in choices if isinstance(choices, list) else ():
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        if reason is not None and not isinstance(reason, str):
            said = f"the reply's finish_reason is not text ({type(reason).__name__})"
            return Malformed(f"{backend}: {said}" if backend else said, backend=backend)
        if reason in UNFINISHED:
            said = stopped_by_backend(reason)
            return Cut(f"{backend}: {said}" if backend else said, backend=backend)
    return None


# Where a whole reply's choice holds its answer, by API (`misshapen`'s `answer`).
ANSWER_KEYS = {"chat": "message", "completions": "text"}


def misshapen(reply: dict[str, Any], backend: str, answer: str | None = None) -> Malformed | None:
    """The error when a chat reply or chunk has `choices` that are not a list of objects, or
    a choice whose `delta` or `message` is not an object (`"delta": "hi"`). No client reads
    them: the Messages and Responses translators read past them (an `end_turn` answer with
    nothing in it, recorded ok) or raised AttributeError, a traceback of the router's own
    (found in review). No `choices` at all is a usage chunk's. A whole reply (`answer`: the
    key its choices hold their answer in, `ANSWER_KEYS`) whose choice has that key null or
    not at all is one too: an empty `ok` answer through the translators, and the OpenAI
    SDK's `choices[0].message` raised AttributeError in the client (found in review)."""
    choices = reply.get("choices")
    said = None if choices is None else _odd_choices(choices, answer)
    if said is None:
        return None
    return Malformed(f"{backend}: {said}" if backend else said, backend=backend)


def _odd_choices(choices: object, answer: str | None) -> str | None:
    """What no client could read in `choices`; one plain loop, as it runs on every chunk (a
    generator per check and `isinstance(x, dict | None)`, which builds the union each time,
    cost a 20-chunk stream 15 % more instructions; docs/benchmarks.md)."""
    if not isinstance(choices, list):
        return "the reply's choices are not a list of objects"
    for choice in choices:
        if not isinstance(choice, dict):
            return "the reply's choices are not a list of objects"
        delta, message = choice.get("delta"), choice.get("message")
        if (delta is not None and not isinstance(delta, dict)) or (
            message is not None and not isinstance(message, dict)
        ):
            return "a choice's delta or message is not an object"
        if answer is not None and choice.get(answer) is None:
            # a whole reply's only: a chunk may carry `"message": null` beside its delta (one
            # Choice model serialised with its nulls, as Volcengine's API documents)
            return f"a choice's {answer} is null or missing, so no answer"
        calls = (delta or message or {}).get("tool_calls")
        if calls is not None and not (
            isinstance(calls, list) and all(isinstance(call, dict) for call in calls)
        ):
            return "a choice's tool_calls are not a list of objects"
    return None


def reply_object(raw: bytes, name: str) -> dict[str, Any]:
    """A whole 200 reply's body as an object: anything else is the backend's fault."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise Malformed(f"{name}: the reply is not JSON", backend=name) from None
    if not isinstance(obj, dict):
        raise Malformed(f"{name}: the reply is not a JSON object", backend=name)
    return obj


def whole_error(
    reply: dict[str, Any], api: str, name: str, secrets: Collection[str] = ()
) -> UpstreamError | None:
    """The error a whole 200 chat reply carries in place of an answer (an `error` object and
    no `choices`), typed as the same error in a stream is (`in_band`), cleaned of the
    backend's `secrets`: a proxy's, which vLLM and OpenAI never send. It went to the client
    as the answer, its text unread and no other backend tried (found in review)."""
    error = reply.get("error")
    if error is None or not answerless(reply):
        return None
    typed = in_band(api, error, name, secrets)
    typed.message = f"{name}: error in place of the reply: {typed.message}"
    return typed


def answerless(reply: dict[str, Any]) -> bool:
    """Whether a whole chat reply holds no answer: no `choices`, or an empty list. A live
    attempt fails on it: beside an `error` as that error (`whole_error`), else as a
    malformed reply (`no_answer`); an `error` beside choices is no error, as in a stream.
    The canary bills no such reply: it answered nothing (`router.canary_spend`)."""
    return not reply.get("choices")


def no_answer(reply: dict[str, Any], name: str) -> Malformed | None:
    """The error when a whole chat or completions reply holds no answer and no error says
    why (`{}`, `{"choices": []}`): it went to the client as the answer, recorded ok with no
    other backend tried, where the OpenAI SDK's `choices[0]` then failed and a Messages or
    Responses client got an empty answer (found in review). Several choices, or one whose
    content is null beside its tool calls, are answers."""
    if not answerless(reply):
        return None
    said = "the reply holds no choices, so no answer"
    return Malformed(f"{name}: {said}" if name else said, backend=name)


def whole_failure(
    reply: dict[str, Any], api: str, name: str, secrets: Collection[str] = ()
) -> UpstreamError | None:
    """What fails a whole 200 chat or completions reply (`api` the one its error is mapped
    into): an error in place of the answer, choices no client can read, no answer at all,
    or an answer stopped short. One list for the native path (`router.dispatch`) and the
    translated one (`router.translate.exchange`): a check added to one alone left the other
    serving what it fails. A Responses or Messages backend's own reply has no `choices`:
    its callers never check one here."""
    return (
        whole_error(reply, api, name, secrets)
        or misshapen(reply, name, ANSWER_KEYS.get(api, "message"))
        or no_answer(reply, name)
        or unfinished(reply, name)
    )
