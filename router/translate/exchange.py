"""Sending one agent-API request to one backend: natively, or translated through chat.

The dispatcher calls `send` for every attempt. A backend that speaks the client's API gets
the body untouched (pass-through), but for the Responses reasoning items the router made
itself (`native_responses`: OpenAI answers 404 for them) and a Messages history's tool ids
outside Anthropic's pattern or repeated (`native_messages`: Anthropic refuses the request
for them, and they came from a chat backend's turns), and for what only OpenAI's or
Anthropic's own API takes, which another server that speaks their API (vLLM) refused: a
custom tool's grammar (told in its description), Anthropic's server tools (dropped) and
more than 4 stop sequences (refused, `stop_limit`). A chat backend gets the translated
request and its reply comes back already in the client's API, so the commit point (the
first event), fallback and the relay work the same either way. Translation never forwards
the `anthropic-*` headers: they mean nothing to a chat server.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from evals.urls import openai_hosted
from router import retry_words
from router.attempt_errors import Cut, Rejected, Uncarried, UpstreamError
from router.backends.base import Backend, Reply, Translation, building
from router.backends.litellm import provider_of
from router.config import Backend as BackendSettings
from router.content_checks import uncarried
from router.errors import BadRequest
from router.record import Api
from router.reply_checks import misshapen, reply_object, unfinished, whole_failure
from router.request_size import estimate_prompt_tokens
from router.sse import DONE, EventBuffer, Written
from router.translate import (
    anthropic_reply,
    anthropic_request,
    native_echo,
    native_messages,
    native_responses,
    responses_reply,
    responses_request,
    responses_whole,
    stop_limit,
)
from router.translate.pairing import anthropic_own, native
from router.translate.tool_ids import ToolIds
from router.translate.wire import finish_reasons
from router.upstream_errors import in_band
from router.vllm_fields import is_vllm

log = logging.getLogger("smf_router")


class ChatStream(Translation, Protocol):
    started: bool
    ended: bool

    @property
    def finished(self) -> bool: ...

    @property
    def answering(self) -> bool: ...

    def feed(self, chunk: dict[str, Any]) -> list[bytes]: ...

    def end(self) -> list[bytes]: ...


@dataclass(frozen=True, slots=True)
class Whole:
    """A whole translated reply's `Translation`: known once made, nothing held back."""

    usage_estimated: bool
    wrapped: frozenset[int]
    upstream_finish_reasons: list[str]
    held_chars: int = 0
    upstream_usage: dict[str, Any] | None = None

    @property
    def held_input(self) -> dict[int, str]:
        return {}


async def send(
    backend: Backend,
    api: Api,
    body: dict[str, Any],
    headers: dict[str, str],
    stream: bool,
    asked: dict[str, Any] | None = None,
) -> Reply:
    """`body` to `backend`, translated when it does not speak `api`; a reply the router
    makes echoes `asked`, the request as the client sent it (`call.Call.asked`; by
    default `body`), and so does a native reply the `previous_response_id` the router took
    out of `body` (`native_echo`)."""
    if native(api, backend.settings):  # as sent, but for what the native API would refuse
        sent = _for_native(api, body, backend.settings)
        reply = await backend.send(api, sent, headers, stream)
        previous = native_echo.taken_out(body, asked) if api == "responses" else None
        if previous is None:
            return reply
        return native_echo.echoing(reply, previous, backend.settings.name)
    name = backend.settings.name
    with building(name):
        settings = backend.settings
        chat = to_chat(api, body, stream, name, keeps_cache(settings), is_vllm(settings))
    plain = {k: v for k, v in headers.items() if not k.startswith("anthropic-")}
    reply = await backend.send("chat", chat, plain, stream)
    if not stream:
        answer = _whole_answer(reply, backend)
        whole = reply_from_chat(api, asked or body, answer)
        guessed = api == "messages" and not isinstance(answer.get("usage"), dict)
        wrapped = (
            anthropic_reply.wrapped_inputs(answer, whole) if api == "messages" else frozenset()
        )
        facts = Whole(guessed, wrapped, finish_reasons(answer))
        return Reply(reply.status, reply.headers, body=orjson.dumps(whole), translation=facts)
    assert reply.stream is not None
    out = stream_for(api, asked or body)
    events = _translated(reply.stream, out, name, backend.secret_values)
    return Reply(reply.status, reply.headers, stream=events, close=reply.close, translation=out)


def _whole_answer(reply: Reply, backend: Backend) -> dict[str, Any]:
    """A whole chat reply's object, else the error it is (an error object, the engine's
    abort, no choices): the gateway falls back, or answers with it. The error keeps the
    backend's status, a 200, for the attempt's record, as an untranslated reply checked
    after `send` does (`router.dispatch`)."""
    name = backend.settings.name
    try:
        answer = reply_object(reply.body or b"", name)
        stopped = whole_failure(answer, "chat", name, backend.secret_values())
    except UpstreamError as error:
        error.upstream_status = error.upstream_status or reply.status
        raise
    if stopped is not None:
        stopped.upstream_status = stopped.upstream_status or reply.status
        raise stopped
    return answer


def _for_native(api: Api, body: dict[str, Any], settings: BackendSettings) -> dict[str, Any]:
    """The body a native backend gets: Responses without the router's own reasoning items,
    its grammar tools free-form but on OpenAI's own API (`native_responses`); Messages with
    tool ids Anthropic takes, without server tools but on Anthropic's (`native_messages`),
    refused for more stop sequences than a backend other than Anthropic's takes
    (`stop_limit`)."""
    if api == "responses":
        return native_responses.for_native(body, openai=openai_hosted(settings.base_url))
    if api == "messages":
        anthropic = anthropic_own(settings)
        if not anthropic:
            _check_stops(body, settings.name)
        return native_messages.for_native(body, anthropic=anthropic)
    return body


def _check_stops(body: dict[str, Any], name: str) -> None:
    """Raise the client's 400 naming `stop_sequences` when `body` holds more than backend
    `name` takes (`stop_limit`): an attempt's refusal, as the backend's own would be."""
    why = stop_limit.refusal(body)
    if why is not None:
        refusal = BadRequest(why, param="stop_sequences").body()
        raise Rejected(f"{name}: {why}", backend=name, status=400, upstream=refusal)


def _check_types(api: Api, body: dict[str, Any], name: str) -> None:
    """Raise `Uncarried` when `body` holds a type the translation to chat would drop without
    a word (`content_checks.uncarried`): backend `name` cannot be sent it, a native backend
    further on may (the plan moves on)."""
    if api not in ("messages", "responses"):
        return
    refusal = uncarried(api, body)
    if refusal is not None:
        raise Uncarried(refusal, name)


def keeps_cache(settings: BackendSettings) -> bool:
    """Whether a Messages request's `cache_control` may go to this chat backend: a litellm
    one whose provider is Anthropic hands it back to Anthropic (without it, Claude Code's
    prompt cache was lost there, every turn paid in full: found in review); another server
    may refuse the field in a content part. The provider is litellm's own reading of the
    model, as for a request: a plain `claude-…` goes to Anthropic too (found in review)."""
    if settings.kind != "litellm":
        return False
    return provider_of(settings) == "anthropic"


def to_chat(
    api: Api,
    body: dict[str, Any],
    stream: bool,
    name: str,
    cache: bool = False,
    prefill: bool = False,
) -> dict[str, Any]:
    """The chat body for a Messages or Responses one, for backend `name`; one holding a type
    the translation does not know (`_check_types`) is refused, and a Messages body with more
    stop sequences than chat's `stop` holds (`stop_limit`). `cache`
    and `prefill` say what the backend takes (`keeps_cache`, `router.vllm_fields.is_vllm`); a
    Responses input has no prefill (`router.translate.prefill`)."""
    _check_types(api, body, name)
    if api == "messages":
        _check_stops(body, name)
        return anthropic_request.to_chat(body, stream, cache=cache, prefill=prefill)
    if api == "responses":
        try:
            chat = responses_request.to_chat(body, stream)
        except responses_request.Untranslatable as exc:
            refusal = BadRequest(str(exc)).body()
            raise Rejected(f"{name}: {exc}", backend=name, status=400, upstream=refusal) from None
        _tell_dropped(name, responses_request.dropped_tools(body))
        return chat
    refusal = BadRequest(api).body()
    raise Rejected(f"{name} cannot serve {api}", backend=name, status=400, upstream=refusal)


_TOLD: set[tuple[str, str]] = set()  # (backend, tool type) whose drop the log has told


def _tell_dropped(backend: str, tools: list[str]) -> None:
    """Log, once per backend and tool type, a tool the translation cannot offer a chat
    backend (a hosted one, Codex's `web_search`): the request is answered without it, and
    only this line says so. It names the tool as `dropped_tools` does, a known type and a
    plain name, nothing else the client wrote; the types are a fixed few and the backends
    the config's, so no client can fill `_TOLD` and silence a later drop (found in review)."""
    for tool in tools:
        told = (backend, tool.partition(":")[0])
        if told in _TOLD:
            continue
        _TOLD.add(told)
        log.info(
            "backend %s speaks chat only: the Responses tool %s has no chat form (it runs at"
            " OpenAI) and is not offered to its model; said once per type",
            backend,
            tool,
        )


def reply_from_chat(api: Api, request: dict[str, Any], chat: dict[str, Any]) -> dict[str, Any]:
    if api == "messages":
        ids = ToolIds(request=request)
        return anthropic_reply.from_chat(chat, estimate_prompt_tokens("messages", request), ids)
    custom, namespaced = responses_request.reply_tools(request)
    return responses_whole.from_chat(chat, request, custom, namespaced)


def stream_for(api: Api, request: dict[str, Any]) -> ChatStream:
    if api == "messages":
        ids = ToolIds(request=request)
        return anthropic_reply.MessagesStream(estimate_prompt_tokens("messages", request), ids=ids)
    echo = {k: v for k, v in request.items() if k not in ("input", "stream")}
    ids = ToolIds(request=request, prefix="call")
    custom, namespaced = responses_request.reply_tools(request)
    return responses_reply.ResponsesStream(echo, custom, ids=ids, namespaced=namespaced)


async def _translated(
    pieces: AsyncIterator[bytes],
    out: ChatStream,
    name: str,
    secrets: Callable[[], Collection[str]] = tuple,
) -> AsyncIterator[bytes]:
    """Chat SSE bytes in, the client API's events out; raises the upstream's error event.

    One item per upstream piece, empty when the piece made no event (a keep-alive, a tool
    call held back while another is incomplete): the relay's stall timer counts upstream
    progress, so a live upstream is never taken for a stalled one. An error event, a finish
    reason saying the answer was stopped ("abort"), a chunk no client could read
    (`misshapen`) or a [DONE] before the answer said why it stopped (a cut, as on the chat
    API) raises its typed error (after the events before it): the relay or the dispatcher
    renders it in the client's API, or falls back before the commit. A close without [DONE]
    before then yields no end: the relay calls that a cut too. A connection that broke
    instead of closing is read as a close: a finished answer is completed, else the relay
    calls the transport's error a cut. `secrets`: the backend's (`Backend.secret_values`),
    asked for when an error event comes, which is cleaned of them. Each item is `Written`:
    the commit and the relay read its events as the translator built them, not its bytes."""
    buffer = EventBuffer(name)
    iterator = pieces.__aiter__()
    while True:
        try:
            piece = await iterator.__anext__()
        except StopAsyncIteration:
            break
        except (UpstreamError, TimeoutError):
            raise  # an adapter's verdict, already typed; a stall is the relay's to name
        except Exception:  # the transport's: the answer decides, as at a close
            if out.finished:
                break
            raise
        events, over, failed = _events(buffer.feed(piece), out, name, secrets)
        yield Written.of(events)
        if failed is not None:
            raise failed
        if over:
            return
    if out.finished:  # no [DONE], but the upstream had said why it stopped: a whole answer
        yield Written.of(out.end())


def _events(
    parsed: Iterable[tuple[bytes, bytes | None]],
    out: ChatStream,
    name: str,
    secrets: Callable[[], Collection[str]],
) -> tuple[list[bytes], bool, UpstreamError | None]:
    """The client API's events for one upstream piece's chat events, whether the stream is
    over (its end, or garbage the relay reports as malformed), and its error, if it sent one."""
    events: list[bytes] = []
    for _, data in parsed:
        if data is None:
            continue
        if data == DONE:
            if out.answering:  # litellm's adapter ends every stream so, finished or not
                cut = Cut(retry_words.ended_unfinished(name), backend=name)
                return events, True, cut
            return [*events, *out.end()], True, None
        try:
            chunk = orjson.loads(data)
        except orjson.JSONDecodeError:
            return [*events, b"data: " + data + b"\n\n"], True, None
        if isinstance(chunk, dict):
            if chunk.get("error") is not None:  # `"error": null` is none (`events.failure`)
                return events, True, in_band("chat", chunk["error"], name, secrets())
            odd = misshapen(chunk, name)
            if odd is not None:  # what the relay says of it on the chat API
                return events, True, odd
            events.extend(out.feed(chunk))
            stopped = unfinished(chunk, name) if chunk.get("choices") else None
            if stopped is not None:  # not a stop reason: a half tool call must not run
                return events, True, stopped
        if out.ended:
            return events, True, None
    return events, False, None
