"""The commit point of a stream: held until its first token, so what fails before it falls back.

Streams open before their first token: chat with a chunk that only names the role (vLLM
sends it with the engine's first output, and that output may be `finish_reason: "abort"`),
Messages with `message_start`, Responses with `response.created` (and the translators make
those from the chat opener). Committing on the opener sent the client a 200 and then the
abort or error, where the next backend could have answered. So `router.dispatch` holds a
stream, sending the client nothing, until its first output or its end; the relay then
replays what was held.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import orjson

from router.attempt_errors import Cut, Malformed, Timeout, UpstreamError
from router.first_token import carries_output
from router.record import CHAT_APIS, Api
from router.reply_checks import misshapen, unfinished
from router.silence import shows_work
from router.sse import DONE, Written
from router.translate import events
from router.upstream_errors import in_band

if TYPE_CHECKING:
    from router.backends.base import Translation
    from router.call import Committed


@dataclass(slots=True)
class Hold:
    """The wait before a stream commits. `first_token_s` bounds the wait for its first
    event; once it opened, the wait is for its first token, and what bounds it is the gap
    between pieces (`idle_s`, up to the total deadline), as after the commit: a model that
    reasons streams reasoning the translators hold for a grace before they show it (a
    Messages ping, a Responses reasoning item, which commit), and it is working, not late
    (found in review).
    `working` says an event showed the engine at work on the request
    (`router.silence.shows_work`), and `heard` is told so each time. `translation`: the
    translated reply's, once held (`unsent_chars`)."""

    idle_s: float
    deadline: float
    limit: asyncio.Timeout | None = None
    opened: bool = False
    working: bool = False
    heard: Callable[[], None] = lambda: None
    translation: Translation | None = None

    @property
    def unsent_chars(self) -> int:
        """Characters the model generated that the translator held and no event carried (the
        reasoning waiting out its grace): an attempt that ends before its commit sent the
        client none of them, yet they were generated, and the record's estimate counts the
        failed attempts' (`Call.unsent_chars`, summed). It recorded 0 output tokens (found
        in review)."""
        return self.translation.held_chars if self.translation is not None else 0

    def worked(self) -> None:
        """An event showed the engine at work (its first output or end included)."""
        self.working = True
        self.heard()

    # What bounds the wait now, for the message when it fires: None until `alive` moved
    # the limit (the budget `first_token_s` still does), then `idle_s` or the deadline.
    bound: Literal["idle", "total"] | None = None

    def alive(self) -> None:
        """A piece arrived after the stream opened, or opened it: the next may take up to
        `idle_s`, and no longer than the total deadline."""
        if self.opened and self.limit is not None:
            left = self.deadline - time.monotonic()
            self.bound = "idle" if self.idle_s < left else "total"
            left = min(self.idle_s, left)
            self.limit.reschedule(asyncio.get_running_loop().time() + left)

    def expired(self, name: str, budget: float, stream: bool) -> Timeout:
        """The error for the limit that fired. It named `idle_s` for every opened stream, yet
        one whose opener came alone in its first piece still waited on `first_token_s`, and
        one near its total deadline waits on that (found in review)."""
        if self.bound == "idle":
            message = f"{name}: stream stalled for {self.idle_s:g} s before its first token"
            return Timeout(message, backend=name, kind="stall")
        if self.bound == "total":
            message = f"{name}: total time limit reached before its first token"
            return Timeout(message, backend=name)
        kind = "first_token_timeout" if stream else "timeout"
        return Timeout(f"{name}: no answer within {budget:g} s", backend=name, kind=kind)


async def hold_until_first_token(committed: Committed, name: str, api: Api, hold: Hold) -> None:
    """Read until the first event that decides the attempt: its first output, its end (or
    `MAX_HELD_EVENTS`, which no real opener needs), within `Hold`'s limits. An error, an
    abort, garbage or an early end before it raises, a chat stream's `[DONE]` too
    (`done_before_answer`), and the attempt falls back."""
    reply = committed.reply
    assert reply.stream is not None
    committed.pieces = reply.stream
    hold.translation = reply.translation
    translated = reply.translation is not None
    began = False  # a chat chunk with a choice was held
    try:
        async for piece in reply.stream:
            # Keep every event of this piece: those after the decisive one belong to the reply.
            # a translator's piece comes with its events as built: none is split or decoded
            found = piece.events if type(piece) is Written else list(committed.events.feed(piece))
            committed.first_events.extend(found)
            for _, data in found:
                if data is None:
                    continue
                if data == DONE and api in CHAT_APIS:
                    raise done_before_answer(name, began)
                obj = _check_first(data, name, api, translated, committed.backend.secret_values)
                if obj is None:
                    hold.worked()
                    return
                hold.opened = True
                began = began or bool(api in CHAT_APIS and obj.get("choices"))
                if shows_work(api, translated, obj):
                    hold.worked()
            # after `opened`: the piece that opened the stream starts the `idle_s` wait too
            # (before it, an opener alone in the first piece left `first_token_s` running)
            hold.alive()
            if len(committed.first_events) > MAX_HELD_EVENTS:
                return  # held in memory until the commit: a bound, not a decision
    except UpstreamError:
        await reply.close()
        raise
    except Exception as exc:  # httpx transport errors while reading the stream
        await reply.close()
        raise Cut(
            f"{name}: stream broke before the first event ({type(exc).__name__})", backend=name
        ) from None
    except BaseException:  # cancelled: the first-token deadline fired, or the client left
        # close the upstream too, or it would go on generating (and sending keep-alives that
        # keep its idle timer from ever closing it) for nobody
        await reply.close()
        raise
    await reply.close()
    raise Cut(f"{name}: stream ended before its first token", backend=name)


def done_before_answer(name: str, began: bool) -> UpstreamError:
    """The error for a chat or completions stream that says `[DONE]` while held: no choice
    had output or a finish reason yet (either commits), so it ends with no answer. `[DONE]`
    was the commit point, and a stream of `[DONE]` alone, or of a usage chunk (`"choices":
    []`) and `[DONE]`, reached the client as an empty answer, recorded ok with no other
    backend tried (found in review; a translated Messages or Responses client got a cut,
    and a whole reply with no choices is `malformed`: `reply_checks.no_answer`). So no
    choice at all is that malformed reply; choices that began (a role chunk) and never
    finished are cut, as when the stream closes there, which the relay cut after the commit
    at `[DONE]` (`Tally.open_choices`), where the next backend could have answered."""
    if began:
        return Cut(f"{name}: stream ended before its first token", backend=name)
    said = "the stream ended with no choice, so no answer"
    return Malformed(f"{name}: {said}", backend=name)


def _check_first(
    data: bytes | dict[str, Any],
    name: str,
    api: Api,
    translated: bool,
    secrets: Callable[[], Collection[str]],
) -> dict[str, Any] | None:
    """Raises for an event that fails the attempt; None when the event decides it (the
    stream may be committed), else the event (an opener, a chat chunk that carries nothing
    yet). An error event's text is cleaned of the backend's `secrets` (`in_band`). An event
    the router wrote comes with its object (`sse.Built`), read as it was built."""
    if isinstance(data, dict):
        obj = data
    elif data == DONE:
        return None
    else:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            message = f"{name}: the first streamed event is not JSON"
            raise Malformed(message, backend=name) from None
        if not isinstance(obj, dict):  # `[1]`: garbage too, which the next backend may not send
            message = f"{name}: the first streamed event is not a JSON object"
            raise Malformed(message, backend=name)
    problem = obj.get("error") if api in CHAT_APIS else events.failure(api, obj)
    if problem is not None:  # typed as its HTTP twin: a rate limit is not a broken backend
        error = in_band(api, problem, name, secrets())
        error.message = f"{name}: error event before the first token: {error.message}"
        raise error
    stopped = misshapen(obj, name) or unfinished(obj, name) if api in CHAT_APIS else None
    if stopped is not None:  # before the commit: the next backend may answer
        raise stopped
    return None if carries_output(api, obj, translated) or _ends(api, obj) else obj


MAX_HELD_EVENTS = 10_000

# Events that end an answer without output (an empty completion), per API.
_ENDS = {
    "messages": ("message_delta", "message_stop"),
    "responses": ("response.completed", "response.incomplete", "response.failed"),
}


def _ends(api: Api, obj: dict[str, Any]) -> bool:
    if api not in CHAT_APIS:
        return obj.get("type") in _ENDS[api]
    choices = obj.get("choices")
    return isinstance(choices, list) and any(
        isinstance(c, dict) and c.get("finish_reason") for c in choices
    )
