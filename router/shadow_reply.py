"""A shadow target's whole chat reply, read: the answer to compare, its usage, and whether it
is an answer at all.

Pure. A reply that did not finish is no answer to compare: compared, every restart of a vLLM
shadow target (which ends the requests it drops with `finish_reason: "abort"`, then a 200
and `[DONE]`) wrote a false "disagree" row ("live parses, shadow does not parse"), lowering
the report's agreement and its advice (found in review). Which reasons say the answer was
stopped is live traffic's decision (`reply_checks.UNFINISHED`: a live attempt ending so
fails over), not a second list.

A shadow answer cut by a token limit (`length`, Mistral's `model_length`) is not the
model's answer either, and is not compared either: unless the live answer was cut by a
limit too (`cut_by_limit`), as a client's small `max_tokens` cuts both, when the two are
what that client gets from each backend and the comparison stays fair. A live answer cut
where the shadow's finished is compared as before: it is what the client got.
`content_filter` is an end (as for live traffic, which hands it to the client): a shadow
backend that filters the request would filter it for the client too, a true difference.

Only the first choice is compared, so only its finish reason decides: the replay asks for
one (`n: 1`); of a reply with more (a backend that ignores `n`), another choice cut by the
limit made a failed replay of a whole first one (found in re-review). The live reply's
first choice likewise says whether the live answer was cut (`Tally.answer_finish_reasons`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from router.attempt_errors import Cut
from router.comparison import Reply
from router.reply_checks import UNFINISHED
from router.translate.wire import LIMIT_REASONS, content_text

# The finish reasons that say a token limit cut the answer, in each client API's words:
# chat's (`LIMIT_REASONS`: "length", Mistral's "model_length"), Messages' stop_reason
# "max_tokens", a Responses reply's `incomplete_details.reason` "max_output_tokens" (what
# `Tally.finish_reasons` holds).
LIMITED = LIMIT_REASONS | {"max_tokens", "max_output_tokens"}


def cut_by_limit(reasons: Iterable[str]) -> bool:
    """Whether a reply that said `reasons` (the live one's, as its client got them) was cut
    by an output limit."""
    return not LIMITED.isdisjoint(reasons)


@dataclass(frozen=True, slots=True)
class ShadowReply:
    """The first choice's answer and finish reason, the reply's usage and every choice's
    finish reason (for the span, as the reply said them)."""

    reply: Reply
    usage: dict[str, Any] | None
    finish_reasons: tuple[str, ...] = ()
    first_reason: str | None = None

    @property
    def stopped(self) -> str | None:
        """The first choice's reason when it says the engine stopped it (`UNFINISHED`)."""
        return self.first_reason if self.first_reason in UNFINISHED else None

    def unfinished(self, live_cut: bool) -> str | None:
        """The row's `shadow_error` when this is no answer to compare ("unfinished: abort",
        "unfinished: length"), else None. `live_cut`: the live answer was cut by a limit."""
        if self.stopped is not None:
            return f"unfinished: {self.stopped}"
        if self.first_reason in LIMIT_REASONS and not live_cut:
            return f"unfinished: {self.first_reason}"
        return None

    @property
    def error_kind(self) -> str | None:
        """The span's `error.type`, as a live attempt's span would say it: `cut` for an
        answer the engine stopped; none for one cut by the limit (a live attempt passes
        that to its client as an answer)."""
        return Cut.kind if self.stopped is not None else None


def parse_reply(body: bytes) -> ShadowReply:
    """A chat completion's first message and finish reason, its usage and every choice's
    finish reason; raises ValueError when malformed (a `message` that is null or no object,
    `tool_calls` that are no list of objects: read anyway, they raised AttributeError out of
    the replay, and the comparison left no row; a finish reason that is not text, which live
    traffic calls malformed)."""
    payload = orjson.loads(body)
    try:
        choices = payload["choices"]
        message = choices[0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError("malformed completion") from exc
    if not isinstance(message, dict):
        raise ValueError("malformed completion: the message is no object")
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        raise ValueError("malformed completion: tool_calls is no list of objects")
    said = [c.get("finish_reason") for c in choices if isinstance(c, dict)]
    if any(r is not None and not isinstance(r, str) for r in said):
        raise ValueError("malformed completion: a finish_reason is not text")
    reply = Reply(content_text(message.get("content")), tuple(calls))
    reasons = tuple(r for r in said if r is not None)  # text, every one: checked above
    return ShadowReply(reply, payload.get("usage"), reasons, choices[0].get("finish_reason"))
