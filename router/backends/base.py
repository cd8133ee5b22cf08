"""The backend protocol: one way to send a request upstream, whatever speaks behind it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from evals.redaction import Secrets
from router.attempt_errors import RouterFault, UpstreamError
from router.backends import openrouter_reasoning
from router.backends.empty_content import without_empty_content
from router.backends.empty_tools import without_empty_tools
from router.backends.search_off import without_search_off
from router.backends.tool_result_ids import with_call_ids
from router.backends.vllm_own import left_out
from router.config import Backend as BackendSettings
from router.record import Api
from router.vllm_fields import is_vllm

log = logging.getLogger("smf_router")

PATHS: dict[Api, str] = {
    "chat": "/chat/completions",
    "completions": "/completions",
    "responses": "/responses",
    "messages": "/messages",
}


async def _nothing() -> None:
    return None


class Translation(Protocol):
    """What the router knows of a reply it made from a chat backend's, beyond the events
    (`router.translate.exchange`: a translator stream, or a whole reply's `Whole`). Those
    events come from chat chunks (a Messages `ping` from reasoning: `first_token`). Each is
    asked once the reply is over, unless said otherwise."""

    @property
    def usage_estimated(self) -> bool:
        """The usage in the reply is the router's estimate, not the upstream's count (a
        Messages reply must carry one, and a chat upstream may send none), or the upstream's
        running count of an answer that did not finish."""

    @property
    def held_chars(self) -> int:
        """Characters the upstream generated that no event to the client carried (a tool
        call's input is held until its block stops): a stream cut before then never sends
        them, and the usage estimate counts them still."""

    @property
    def held_input(self) -> dict[int, str]:
        """The input of a tool call no event carried yet, by its item's output index, as the
        item gives it once whole (a Responses custom call's, held until it closes); asked
        when the stream fails, for the `response.failed` that shows the output so far."""

    @property
    def upstream_usage(self) -> dict[str, Any] | None:
        """The upstream's usage in the client's API once it came, when no event to the
        client may have carried it yet (a stream sends it at its end: one cut after the
        usage chunk, before [DONE], never did); final unless `usage_estimated` (a running
        count, as vLLM's `continuous_usage_stats` sends)."""

    @property
    def wrapped(self) -> frozenset[int]:
        """The content indexes of the tool calls whose input the translation wrapped, being
        no JSON object (`wire.parse_arguments`), for the shadow comparison."""

    @property
    def upstream_finish_reasons(self) -> list[str]:
        """The finish reasons the upstream itself said (a chat backend's `stop`, sent as
        `end_turn`), for the attempt's span."""


@dataclass(slots=True)
class Reply:
    """An upstream's successful answer: a whole body, or a byte stream still arriving."""

    status: int
    headers: Mapping[str, str]
    body: bytes | None = None
    stream: AsyncIterator[bytes] | None = None
    close: Callable[[], Awaitable[None]] = field(default=_nothing)
    translation: Translation | None = None  # None: the upstream's own answer, untranslated


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
        from it is cleaned of them (`evals.redaction`)."""
        ...

    def warm(self) -> None:
        """Slow one-time preparation, run in a thread before the router is ready."""

    def retire(self) -> None:
        """A reload replaced this backend: let go of idle connections; requests in flight
        finish (`aclose` follows once the longest of them could have ended)."""

    async def aclose(self) -> None: ...


def prepare_body(settings: BackendSettings, body: dict[str, Any], api: Api) -> dict[str, Any]:
    """The client's body of `api` with the fields the router owns: `model` and configured
    extras; a chat body without an empty `tools` list, which OpenAI and vLLM refuse
    (`router.backends.empty_tools`); any body without xAI's `search_parameters` of mode
    "off", a search not asked for that OpenAI refuses as an unknown argument
    (`router.backends.search_off`); vLLM's own fields (`top_k`, `chat_template_kwargs`, ...)
    for a backend not taken for vLLM whose `extra_body` does not name them, which OpenAI
    refuses as unknown arguments (`router.backends.vllm_own`); a chat body's OpenRouter
    `reasoning` as OpenAI's `reasoning_effort`, or none, for a backend that does not take it,
    which OpenAI refuses too (`reasoning_for`); a chat body's tool results without their
    `tool_call_id`, as llama-stack's native API sends them, given the ids of the calls they
    pair with by position for a backend not taken for vLLM, which OpenAI refuses otherwise
    (`router.backends.tool_result_ids`); and for such a backend, a chat body's assistant
    turns of tool calls alone with null content, not the empty array rigging sends, which
    OpenAI refuses (`router.backends.empty_content`). Here, so every backend, fallback and
    shadow gets it so.

    Extras are defaults: a dict-valued extra (e.g. `chat_template_kwargs`) is merged with
    what the client sent, the client's keys winning; everything else passes untouched.
    """
    out = dict(without_search_off(without_empty_tools(body) if api == "chat" else body))
    if api == "chat" and not is_vllm(settings):
        out = with_call_ids(without_empty_content(out))
    out = reasoning_for(settings, out, api)
    dropped = left_out(settings, out, api)
    if dropped:  # names only: a value may be anything
        log.debug("%s: vLLM's own fields not sent: %s", settings.name, dropped)
        out = {k: v for k, v in out.items() if k not in dropped}
    out["model"] = settings.model
    for key, value in settings.extra_body.items():
        if key not in out:
            out[key] = value
        elif isinstance(value, dict) and isinstance(out[key], dict):
            out[key] = {**value, **out[key]}
    return out


def reasoning_for(settings: BackendSettings, body: dict[str, Any], api: Api) -> dict[str, Any]:
    """`body` with OpenRouter's `reasoning` as `settings`'s backend takes it
    (`router.backends.openrouter_reasoning`); `body` itself when it goes as sent. A litellm
    backend asks before it picks OpenAI's fields, which leave `reasoning` out."""
    if openrouter_reasoning.FIELD not in body or openrouter_reasoning.takes_it(settings, api):
        return body
    out = openrouter_reasoning.as_openai(body)
    effort = openrouter_reasoning.EFFORT
    how = f"sent as {effort}" if effort in out and effort not in body else "not sent"
    log.debug("%s: OpenRouter's reasoning %s", settings.name, how)  # names only
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
