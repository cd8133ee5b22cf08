"""Relaying a committed stream to the client, and accounting for what passed through.

Whole events are forwarded as the upstream framed them. The relay watches each one for
usage, finish reasons and errors; it strips the usage chunk again when only the router
asked for it, and ends a broken stream with an in-band error event — never with a
truncated answer that looks complete (nor with vLLM's `finish_reason: "abort"`, which
looks like one to a client that does not know it). Two kinds of chat chunk are rewritten:
a tool-call fragment the upstream numbered otherwise than OpenAI does (Ollama's parallel
calls all at `index: 0`, or no `index` at all) gets its call's number, 0, 1, … as the
calls begin (`CallKeys`), since chat clients join fragments by `index`; and a call's
opening fragment that names its function without `arguments` (vLLM's) gets OpenAI's
`"arguments": ""` (`router.call_opening`), since clients type them as a string. Every
other chunk goes out byte for byte.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from router import blame, retry_words
from router.answer_end import finished
from router.attempt_errors import Cut, Malformed, Timeout, UpstreamError
from router.backends.base import Translation
from router.call import Call, Committed
from router.call_opening import give_empty_arguments
from router.dispatch import Dispatcher
from router.errors import RouterError, cancellation, internal_error, stream_error_event
from router.first_token import carries_output
from router.record import CHAT_APIS, Api
from router.reply_checks import UNFINISHED, misshapen, unfinished
from router.request_size import generated_call_chars
from router.sse import DONE, Data, Written, event, reframed
from router.stall import Stall
from router.translate import events
from router.translate.calls import CallKeys
from router.translate.kept_calls import KeptCall
from router.translate.so_far import SoFar, Text
from router.translate.wire import content_text, final_usage, named_event, reasoning_text
from router.upstream_errors import in_band

log = logging.getLogger("smf_router")

_MESSAGE_STOP = named_event("message_stop", {"type": "message_stop"})


@dataclass(slots=True)
class Tally:
    """What the relay learned from the events it saw."""

    usage: dict[str, Any] | None = None
    usage_final: bool = True
    finish_reasons: list[str] = field(default_factory=list)
    # the first chat choice's (`answer_finish_reasons`), every one: upstreams repeat one
    # (litellm's streams sent `stop` after `length`), and the last alone read a cut answer
    # as whole
    first_choice_reasons: list[str] = field(default_factory=list)
    choices: set[int] = field(default_factory=set)  # the chat choices seen, and those
    ended_choices: set[int] = field(default_factory=set)  # with their finish reason
    output_chars: int = 0
    # characters the model generated that the client was never sent (`Translation.held_chars`):
    # the usage estimate counts them as well
    held_chars: int = 0
    wrapped: frozenset[int] = frozenset()  # the tool calls the translation wrapped (`Translation`)
    # the answer's, joined as it comes: a str per delta held 15 times the text (`Text`)
    text: Text = field(default_factory=Text)
    tool_calls: dict[int, KeptCall] = field(default_factory=dict)  # kept with the text
    # per chat choice: which call a fragment grows (its key is the `index` a client sees),
    # and its arguments so far, which the first choice's kept calls share (`_join_calls`)
    call_keys: dict[int, CallKeys] = field(default_factory=dict)
    keep_text: bool = False
    done: bool = False
    remembered: bool = False  # a Responses answer, kept for the turns continuing it (once)
    stopped: bool = False  # a chat choice ended with a reason that says it did not finish
    api: Api = "chat"
    sequence: int = -1  # the last Responses `sequence_number` seen
    response_id: str = ""
    created: dict[str, Any] | None = None  # the Response `response.created` announced
    so_far: SoFar = field(default_factory=SoFar)  # a Responses stream's items
    output: list[Any] = field(default_factory=list)  # a whole Responses reply's items
    # what the reply the router made from a chat backend's knows (`relay`); None: native
    translation: Translation | None = None
    # the committed backend's secrets (`Backend.secret_values`), asked only when its stream
    # sends an error, which is cleaned of them (`in_band`); none before the relay has them
    secrets: Callable[[], Collection[str]] = tuple

    def see(self, obj: dict[str, Any]) -> bool:
        """Take in one event (a chat chunk or a whole reply); True when it rewrote the chunk's
        tool-call fragments in `obj`, renumbered or opened with empty arguments (the relay
        then sends `obj`, not the raw bytes)."""
        if self.api not in CHAT_APIS:
            events.see(self.api, self, obj)
            return False
        rewritten = False
        # its shape was checked before (`misshapen`: the relay's `_inspect` for a chunk,
        # dispatch for a whole reply): choices are a list of objects here
        for choice in obj.get("choices") or ():
            number = choice.get("index")
            number = number if isinstance(number, int) else 0
            self.choices.add(number)
            delta = choice.get("delta") or choice.get("message") or {}
            piece = delta.get("content") if isinstance(delta, dict) else None
            if piece is None:
                piece = choice.get("text")
            elif type(piece) is list:  # Magistral's parts: counted by their text (`content_text`)
                piece = content_text(piece)
            # a model's refusal (OpenAI's `refusal`) is its answer: a streamed one was estimated
            # at 0 tokens and compared as an empty answer (found in review)
            refusal = delta.get("refusal") if isinstance(delta, dict) else None
            for said in (piece, refusal):
                if isinstance(said, str):
                    self.output_chars += len(said)
                    if self.keep_text and number == 0:  # one answer, not n mixed
                        self.text.add(said)
            # generated output too: a stream left mid-reasoning was estimated at 0 tokens
            self.output_chars += len(reasoning_text(delta))
            if isinstance(delta, dict) and delta.get("tool_calls"):  # counted as keyed
                streamed = "delta" in choice  # a whole message's calls are not fragments to fix
                rewritten = self._join_calls(number, streamed, delta["tool_calls"]) or rewritten
            reason = choice.get("finish_reason")
            if reason:  # one that is not text stops it too: the relay names it (`unfinished`)
                text = isinstance(reason, str)
                self.finish_reasons += [reason] if text else []
                if text and number == 0:
                    self.first_choice_reasons.append(reason)
                self.stopped = self.stopped or not text or reason in UNFINISHED
                self.ended_choices.add(number)
        if obj.get("usage"):  # after the finish reasons: a running count is not final
            # of several choices, a choice's chunk counts that choice alone (vLLM's running
            # usage): only the usage chunk holds them all (found in re-review)
            pending = bool(self.open_choices) or len(self.choices) > 1
            self.usage, self.usage_final = obj["usage"], final_usage(obj, pending)
        return rewritten

    def output_items(self) -> list[Any]:
        """A Responses reply's items, for a later `item_reference` (`router.stored_items`):
        a whole reply's, or those a stream finished, as its `SoFar` holds them (the last
        event's copy of them all is not kept: a third copy of the answer's text)."""
        return self.output or [self.so_far.done[i] for i in sorted(self.so_far.done)]

    @property
    def answer_finish_reasons(self) -> list[str]:
        """How the answer kept for the shadow ended: a chat reply's first choice, whose text
        and calls are kept (another choice cut by the limit said the compared one was cut,
        found in re-review); the reply's own of the other APIs, which have one answer."""
        if self.api not in CHAT_APIS:
            return self.finish_reasons
        return self.first_choice_reasons

    @property
    def open_choices(self) -> set[int]:
        """The chat choices seen without their finish reason (a late empty chunk after it
        reopens none)."""
        return self.choices - self.ended_choices

    def _join_calls(self, number: int, streamed: bool, calls: Any) -> bool:
        """Key each tool call of choice `number`: whole calls (a message) or fragments
        (`streamed` deltas), counting the name and arguments the model generated, a call's
        name once (`CallKeys.repeated_name`). The first choice's calls are kept with the
        text, their arguments those their `CallKeys` keeps, every piece of the call (a list
        of their own held 15 times the arguments, found in re-review); a delta's fragment
        whose `index` is not its key gets the key, and one that opens a call without
        arguments gets empty ones (`give_empty_arguments`; True when any was rewritten)."""
        keys = self.call_keys.get(number)
        if keys is None:
            keys = self.call_keys[number] = CallKeys()
        keep = self.keep_text and number == 0
        rewritten = False
        for position, call in enumerate(calls if isinstance(calls, list) else ()):
            if not isinstance(call, dict):
                continue
            key = keys.key(call, position)
            self.output_chars += generated_call_chars(call) - keys.repeated_name(key, call)
            if streamed:  # a whole message's calls are left as they came
                if call.get("index") != key:
                    call["index"], rewritten = key, True
                rewritten = give_empty_arguments(call) or rewritten
            if not keep:
                continue
            slot = self.tool_calls.get(key)  # inline: this runs once per fragment
            if slot is None:  # `keys.arguments`: those of the call `key`, this piece among them
                slot = self.tool_calls[key] = KeptCall(pieces=keys.arguments)
            function = call.get("function") or {}
            if function.get("name"):
                slot.name = str(function["name"])
        return rewritten

    def answer_tool_calls(self) -> list[dict[str, Any]]:
        """The kept tool calls in OpenAI's message shape, in the order they began; those the
        translation wrapped marked `wrapped` (`router.tool_arguments` reads them unwrapped)."""
        return [
            {
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
                **({"wrapped": True} if position in self.wrapped else {}),
            }
            for position, c in sorted(self.tool_calls.items())
        ]


Finish = Callable[[Call, Tally], None]


def _keep_nothing(call: Call, tally: Tally) -> None:
    """No answer kept as its end goes out (a relay outside the gateway's)."""


async def relay(
    call: Call,
    committed: Committed,
    dispatcher: Dispatcher,
    finish: Finish,
    tally: Tally | None = None,
    remember: Finish = _keep_nothing,
) -> AsyncIterator[bytes]:
    """Yield the client's stream; always hands the record to `finish` exactly once. The
    caller may pass the tally to fill (`keep_text` set as it wants), to read it after.
    `remember` gets the tally holding the answer's terminal event before the event is sent:
    its client may continue the answer at once (`router.responses_kept`)."""
    tally = tally or Tally(api=call.api)
    tally.translation = translation = committed.reply.translation
    tally.secrets = lambda: committed.backend.secret_values()
    error_kind: str | None = None
    record = call.record
    try:
        chunk, broken = _forward(committed.first_events, call, tally)
        if chunk:
            if tally.done:
                remember(call, tally)
            yield chunk
        if broken is not None:
            raise broken
        if not tally.done:
            async for out in _rest(call, committed, tally):
                if tally.done:  # the last chunk: `_rest` reads nothing after it
                    remember(call, tally)
                yield out
    except UpstreamError as error:
        error_kind = error.kind
        outcome = blame.after_commit(error)  # whose failure it was
        record.outcome, record.error_kind, record.status = outcome, error.kind, error.status
        yield error_event(call.api, call.named_as_sent(error), tally)
    except (asyncio.CancelledError, GeneratorExit):
        why = cancellation(call.client_left)
        record.outcome, record.error_kind, record.status = "cancelled", why.kind, why.status
        error_kind = "cancelled"
        raise
    except Exception:  # a bug of ours: end with an error event that carries the tally's ids
        record.outcome, record.status, error_kind = "router_error", 500, "router_error"
        log.exception("internal error while relaying %s", call.api)
        yield error_event(call.api, internal_error(), tally)
    finally:
        await committed.reply.close()
        dispatcher.finish_attempt(committed, error_kind, call.client_left, tally.finish_reasons)
        if translation is not None:
            if translation.usage_estimated:
                tally.usage_final = False  # the gateway estimates it and marks it so
            counted = translation.upstream_usage
            if counted is not None:  # sent to the client or cut before it
                # a running count cut mid-answer is not final: the gateway takes the larger
                # of it and its estimate
                tally.usage, tally.usage_final = counted, not translation.usage_estimated
            tally.held_chars, tally.wrapped = translation.held_chars, translation.wrapped
        finish(call, tally)


def error_event(api: Api, error: RouterError, tally: Tally | None = None) -> bytes:
    """The in-band event that ends a committed stream, in the client's API (a Responses
    event carries the response id and sequence the tally saw; without one, none)."""
    if api in CHAT_APIS:
        return stream_error_event(error)
    return events.error_event(api, error, tally or Tally(api=api))


async def _rest(call: Call, committed: Committed, tally: Tally) -> AsyncIterator[bytes]:
    name = committed.backend.settings.name
    idle = committed.backend.settings.timeouts.idle_s
    pieces = committed.pieces
    assert pieces is not None
    iterator = pieces.__aiter__()
    stall = Stall()
    try:
        while True:
            wait = min(idle, committed.deadline - time.monotonic())
            if wait <= 0:
                raise Timeout(retry_words.out_of_time(name), backend=name)
            stall.arm(wait)
            try:
                piece = await iterator.__anext__()
            except StopAsyncIteration:
                break
            except (asyncio.CancelledError, TimeoutError) as exc:
                # our stall timer's cancel, or the client's own gap timeout: both a stall,
                # unless the timer was cut short by the total deadline
                if isinstance(exc, asyncio.CancelledError) and not stall.expired():
                    raise
                if time.monotonic() >= committed.deadline:
                    raise Timeout(retry_words.out_of_time(name), backend=name) from None
                said = retry_words.stalled(name, wait)
                raise Timeout(said, backend=name, kind="stall") from None
            except UpstreamError:
                raise  # an adapter's or a translator's verdict on its stream, already typed
            except Exception as exc:  # transport errors while reading the upstream
                if finished(call.api, call.body, tally):
                    break  # completed: an in-band error made the client pay twice for it
                raise Cut(retry_words.broke(name, exc), backend=name) from None
            finally:
                stall.disarm()
            # a translator's piece comes with its events as built: none is split or decoded
            found = piece.events if type(piece) is Written else committed.events.feed(piece)
            chunk, broken = _forward(found, call, tally)
            if chunk:
                yield chunk  # one write per upstream piece, however many events it held
            if broken is not None:
                raise broken
            if tally.done:
                return
    finally:
        stall.close()
    # The upstream closed, or its connection broke, without its terminal event: complete a
    # finished answer, else cut, as docs/dispatch.md promises (`router.answer_end`).
    if not finished(call.api, call.body, tally):
        raise Cut(retry_words.ended_unfinished(name), backend=name)
    yield event(DONE) if call.api in CHAT_APIS else _MESSAGE_STOP


def _forward(
    events: Iterable[tuple[bytes, Data]], call: Call, tally: Tally
) -> tuple[bytes, Exception | None]:
    """The bytes to send for a run of events, and the error that cut the run short, if any.

    Events before a broken one still reach the client, ahead of the in-band error: the
    tally has seen them, so the error event's ids and sequence follow them. That holds for
    a bug of ours too (the caller re-raises it as one).
    """
    outs: list[bytes] = []
    for raw, data in events:
        try:
            out = _inspect(raw, data, call, tally)
        except Exception as error:
            return b"".join(outs), error
        if out:
            outs.append(out)
        if tally.done:
            break
    # plain bytes: a run of one `Built` event would carry its object on to the writes
    # (joining one event of plain bytes gives it back, no copy)
    return b"".join(outs), None


def _inspect(raw: bytes, data: Data, call: Call, tally: Tally) -> bytes:
    """The bytes to forward for one event (b"" to drop it); marks the tally done at [DONE].
    An event the router wrote comes with its object (`sse.Built`), read as it was built."""
    if data is None:
        return raw  # comments and keep-alives pass through
    if isinstance(data, dict):
        obj = data
    elif data == DONE:
        if tally.open_choices:  # litellm's adapter ends every stream so, finished or not
            raise Cut(retry_words.ended_unfinished("", "a choice"), backend="")
        tally.done = True
        return raw
    else:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise Malformed("upstream sent an event that is not JSON", backend="") from None
        if not isinstance(obj, dict):
            raise Malformed("upstream sent an event that is not a JSON object", backend="")
    if call.record.ttft_s is None and carries_output(call.api, obj, tally.translation is not None):
        call.record.ttft_s = time.monotonic() - call.started
    if call.api not in CHAT_APIS:
        problem = events.failure(call.api, obj)
        if problem is not None:
            raise in_band(call.api, problem, "", tally.secrets())
        events.see(call.api, tally, obj)
        return raw
    if obj.get("error") is not None:  # `"error": null` beside the choices is no error
        raise in_band(call.api, obj["error"], "", tally.secrets())
    odd = misshapen(obj, "")
    if odd is not None:
        raise odd
    rewritten = tally.see(obj)
    if tally.stopped:  # vLLM's "abort" and its [DONE]: the answer did not finish
        raise unfinished(obj, "") or Cut(retry_words.stopped_by_backend(), backend="")
    if not call.wants_usage and obj.get("usage") and not obj.get("choices"):
        return b""
    return reframed(raw, orjson.dumps(obj)) if rewritten else raw
