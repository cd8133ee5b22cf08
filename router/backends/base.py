"""The backend protocol: one way to send a request upstream, whatever speaks behind it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from router.config import Backend as BackendSettings
from router.errors import RouterFault, UpstreamError
from router.record import Api
from router.redaction import Secrets

log = logging.getLogger("smf_router")

PATHS: dict[Api, str] = {
    "chat": "/chat/completions",
    "completions": "/completions",
    "responses": "/responses",
    "messages": "/messages",
}


async def _nothing() -> None:
    return None


def _reported() -> bool:
    return False


def _none_wrapped() -> frozenset[int]:
    return frozenset()


def _none_held() -> int:
    return 0


def _none_held_input() -> dict[int, str]:
    return {}


def _no_usage() -> dict[str, Any] | None:
    return None


def _as_sent() -> list[str] | None:
    return None


@dataclass(slots=True)
class Reply:
    """An upstream's successful answer: a whole body, or a byte stream still arriving."""

    status: int
    headers: Mapping[str, str]
    body: bytes | None = None
    stream: AsyncIterator[bytes] | None = None
    close: Callable[[], Awaitable[None]] = field(default=_nothing)
    # Whether the usage in the reply is the router's estimate, not the upstream's count (a
    # Messages reply must carry one, and a chat upstream may send none), or the upstream's
    # running count of an answer that did not finish; asked once it is over.
    usage_estimated: Callable[[], bool] = field(default=_reported)
    # Characters the upstream generated that no event to the client carried (a translated
    # tool call's input is held until its block stops); asked once it is over: a stream
    # cut before then never sends them, and the usage estimate counts them still.
    held_chars: Callable[[], int] = field(default=_none_held)
    # The input of a tool call no event carried yet, by its item's output index, as the
    # item gives it once whole (a translated Responses custom call's, held until it closes);
    # asked when the stream fails, for the `response.failed` that shows the output so far.
    held_input: Callable[[], dict[int, str]] = field(default=_none_held_input)
    # The upstream's usage in the client's API once it came, when no event to the client
    # may have carried it yet (a translated stream sends it at its end: one cut after the
    # usage chunk, before [DONE], never did); asked once it is over, and final unless
    # `usage_estimated` (a running count, as vLLM's `continuous_usage_stats` sends).
    upstream_usage: Callable[[], dict[str, Any] | None] = field(default=_no_usage)
    # The content indexes of the tool calls whose input the translation wrapped, being no
    # JSON object (`wire.parse_arguments`); asked once it is over, for the shadow comparison.
    wrapped: Callable[[], frozenset[int]] = field(default=_none_wrapped)
    # The router made this reply from a chat backend's (`router.translate.exchange`): its
    # events come from the chat chunks, a Messages `ping` from reasoning (`first_token`).
    translated: bool = False
    # The finish reasons the upstream itself said, when a translation turned them into the
    # client API's (a chat backend's `stop`, sent as `end_turn`); None when the events are
    # the upstream's own (they say them). Asked once it is over, for the attempt's span.
    upstream_finish_reasons: Callable[[], list[str] | None] = field(default=_as_sent)


class Backend(Protocol):
    """Sends one request to one upstream. Raises a typed `UpstreamError` on failure."""

    settings: BackendSettings
    # Its provider answers one choice whatever `n` asks (litellm drops Anthropic's `n`);
    # learnt once, by `warm`.
    one_choice_only: bool

    async def send(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> Reply: ...

    def secret_values(self) -> Secrets:
        """What the router sends this upstream that no client may read (its key, headers,
        a password or query in its URL), compiled when the adapter was made: an error text
        from it is cleaned of them (`router.redaction`)."""
        ...

    def warm(self) -> None:
        """Slow one-time preparation, run in a thread before the router is ready."""

    def retire(self) -> None:
        """A reload replaced this backend: let go of idle connections; requests in flight
        finish (`aclose` follows once the longest of them could have ended)."""

    async def aclose(self) -> None: ...


def prepare_body(settings: BackendSettings, body: dict[str, Any]) -> dict[str, Any]:
    """The client's body with the fields the router owns: `model` and configured extras.

    Extras are defaults: a dict-valued extra (e.g. `chat_template_kwargs`) is merged with
    what the client sent, the client's keys winning; everything else passes untouched.
    """
    out = dict(body)
    out["model"] = settings.model
    for key, value in settings.extra_body.items():
        if key not in out:
            out[key] = value
        elif isinstance(value, dict) and isinstance(out[key], dict):
            out[key] = {**value, **out[key]}
    return out


@contextmanager
def building(backend: str) -> Iterator[None]:
    """Around making a request for `backend`, before a byte of it is sent: whatever raises
    here is a bug of ours on this client's request (`RouterFault`: the next backend may
    still serve, and no breaker counts it), never the backend's failure. The dispatcher took
    it for an unreadable reply (`Malformed`), so a few odd requests from one client opened
    every backend's circuit for everyone. A typed error (an untranslatable body's
    `Rejected`) goes through as it is."""
    try:
        yield
    except UpstreamError:
        raise
    except Exception:
        log.exception("%s: the request could not be built", backend)
        raise RouterFault(backend) from None
