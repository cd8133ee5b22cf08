"""Talking to an OpenAI-compatible endpoint: the request body for a case, one call
(``ask``), and what its reply holds (``parse_answer``).

Anything short of a 200 with a readable completion is a ``TransportProblem``, never a
grade: a down backend is not a quality signal (``evals.runner`` runs the cases). Its
message is cleaned of the endpoint's secrets (``said``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from evals.graders import Answer
from evals.redaction import NO_SECRETS, Secrets, head
from evals.suite import Case
from evals.urls import joined, openai_hosted

Ask = Callable[[dict[str, Any]], Awaitable[Any]]
"""One chat-completions body in, the parsed completion out; raises ``TransportProblem``."""


@dataclass(frozen=True)
class Endpoint:
    """Where to send cases. ``extra_body`` is merged into every request body. ``secrets``:
    what its error texts are cleaned of, its key and credential headers (for a router
    backend, ``Backend.secret_values``): a gateway that repeats its request put them in
    the canary's CronJob log and a results file (found in review). ``direct``: connect
    without ``HTTP_PROXY``/``HTTPS_PROXY``, as the router's own traffic to a backend does
    (`eval run --backend` went through a shell's corporate proxy where the canary did not)."""

    base_url: str
    model: str
    api_key: str | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    secrets: Secrets = NO_SECRETS
    direct: bool = False


class TransportProblem(Exception):
    """The endpoint did not give a usable reply (the case counts as ``error``).

    ``timed_out``: it gave none in time, whoever noticed (a client's own timeout, a proxy's
    504, a 408): not a quick failure such as a refused connection (the canary tells them
    apart, `router.canary_bound`). ``status`` and ``reply``: the HTTP error status and body
    it answered with, if it did, which the canary's spans name the error by as the router
    names a live attempt's (`router.canary_spans`): with the message alone, "transport".
    ``began``: the 200 and its headers came and the body then broke off (the router's
    ``cut``, not ``unreachable``: the backend was reached and started answering).
    ``headers``: the error reply's, whose ``Retry-After`` the canary reads (a backend that
    asks for a wait is passed by for the rest of its round, `router.canary_wait`)."""

    def __init__(
        self,
        message: str,
        *,
        timed_out: bool = False,
        status: int | None = None,
        reply: bytes = b"",
        began: bool = False,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.status = status
        self.reply = reply
        self.began = began
        self.headers: Mapping[str, str] = headers if headers is not None else {}


NO_REPLY_IN_TIME = frozenset({408, 504})
"""HTTP statuses that say the reply did not come in time (a proxy's or the server's own)."""

SHOWN_BODY_CHARS = 200
"""How much of an error reply's body a ``TransportProblem`` says."""
SHOWN_ERROR_CHARS = 300
"""How much of a transport error's words (its class and message) one says."""


def said(endpoint: Endpoint, text: str, limit: int) -> str:
    """``text``, an upstream's words (an error body, a transport error's message, which can
    hold the URL with its password), as a message may show it: at most ``limit``
    characters, cleaned of the endpoint's secrets and of what looks like a credential
    before the cut, as the router cleans a live attempt's (``Secrets.cut``). Read from
    twice ``limit`` only (``head``): a key the cut goes through is whole there, and a page
    of megabytes is not cleaned whole. Cut raw, ``HTTP 500: ...`` showed the backend's key
    and ``X-Gateway-Token`` a gateway repeated (found in review)."""
    return endpoint.secrets.cut(head(text, 2 * limit), limit)


def request_body(
    case: Case,
    endpoint: Endpoint,
    thinking: bool | None = False,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The chat-completions body for one case; ``thinking=None`` sends no template switch,
    ``max_tokens`` replaces the case's own (cut to fit a context window).

    The endpoint's ``extra_body`` is a set of defaults, as for live traffic: the case's own
    settings win (a backend default of ``max_tokens: 4096`` must not undo the cut to fit a
    window, nor a default temperature change what the case is graded at)."""
    body: dict[str, Any] = dict(endpoint.extra_body)
    limit = "max_completion_tokens" if openai_hosted(endpoint.base_url) else "max_tokens"
    for name in ("max_tokens", "max_completion_tokens"):  # the backend's defaults: the case's
        body.pop(name, None)  # own limit wins (vLLM reads `max_completion_tokens` first)
    body.update(
        model=endpoint.model,
        messages=[{"role": "user", "content": case.prompt}],
        temperature=case.temperature,
        stream=False,
    )
    body[limit] = max_tokens or case.max_tokens
    if case.tools:
        body["tools"] = case.tools
    if thinking is not None:
        kwargs = dict(body.get("chat_template_kwargs") or {})
        kwargs["enable_thinking"] = thinking
        body["chat_template_kwargs"] = kwargs
    return body


UNFINISHED = frozenset({"abort", "error", "insufficient_system_resource"})
"""Finish reasons that say the server stopped the answer, not the model: vLLM's and SGLang's
"abort" (the engine dropped the request: shutdown, sleep mode, scale-down), vLLM's "error",
DeepSeek's "insufficient_system_resource". The router's ``reply_checks.UNFINISHED``."""


def parse_answer(payload: Any) -> tuple[Answer, int | None]:
    """Content, reasoning and tool calls from a chat completion; raises on a malformed one,
    and on one the server stopped (``UNFINISHED``): graded, an engine abort's cut answer was
    the model's failure, and the canary closed a route's gate on a backend restarting. A
    ``finish_reason`` other than text or null is a malformed completion.

    Content given as a list of parts (some servers do) is their text joined."""
    try:
        choice = payload["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise TransportProblem(f"malformed completion: {exc!r}") from exc
    if not isinstance(message, dict):
        raise TransportProblem(f"malformed completion: message is {type(message).__name__}")
    reason = choice.get("finish_reason")
    if not isinstance(reason, str | None):  # a list raised TypeError at `in`: the run ended
        raise TransportProblem(f"malformed completion: finish_reason is {type(reason).__name__}")
    if reason in UNFINISHED:
        raise TransportProblem(f"the answer was stopped (finish_reason {reason!r})")
    calls = well_formed(message.get("tool_calls") or [])
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        raise TransportProblem("malformed completion: tool_calls is not a list of objects")
    usage = payload.get("usage")
    tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    answer = Answer(
        content=_text(message.get("content"), "content"),
        reasoning=_text(message.get("reasoning") or message.get("reasoning_content"), "reasoning"),
        tool_calls=calls,
    )
    return answer, tokens if isinstance(tokens, int) else None


def _text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return well_formed_text(value)
    if isinstance(value, list):
        texts = [p.get("text") for p in value if isinstance(p, dict)]
        return well_formed_text("".join(t for t in texts if isinstance(t, str)))
    raise TransportProblem(f"malformed completion: {name} is {type(value).__name__}")


def well_formed_text(text: str) -> str:
    """``text`` with every unpaired surrogate replaced by U+FFFD. JSON may escape half a
    pair (``"\\ud83d"``, a model cut mid-emoji) and Python's parser keeps it: such text
    cannot be encoded as UTF-8, so printing or saving the answer failed."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def well_formed(value: Any) -> Any:
    """Parsed JSON with ``well_formed_text`` applied to every string in it."""
    if isinstance(value, str):
        return well_formed_text(value)
    if isinstance(value, list):
        return [well_formed(v) for v in value]
    if isinstance(value, dict):
        return {well_formed(k): well_formed(v) for k, v in value.items()}
    return value


async def ask(client: httpx.AsyncClient, endpoint: Endpoint, body: dict[str, Any]) -> Any:
    """POST one completion; any failure to get a 200 JSON reply is a ``TransportProblem``.

    The status and headers are awaited apart from the body, so a body that breaks off after
    them says so (``began``): read in one step, it looked like a refused connection."""
    headers = dict(endpoint.headers)
    if endpoint.api_key:
        headers["authorization"] = f"Bearer {endpoint.api_key}"
    url = joined(endpoint.base_url, "/chat/completions")
    began = False
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            began = True
            await response.aread()
    except httpx.HTTPError as exc:
        late = isinstance(exc, httpx.TimeoutException)
        words = said(endpoint, f"{type(exc).__name__}: {exc}", SHOWN_ERROR_CHARS)
        raise TransportProblem(words, timed_out=late, began=began) from exc
    if response.status_code != 200:
        late = response.status_code in NO_REPLY_IN_TIME
        raise TransportProblem(
            f"HTTP {response.status_code}: {said(endpoint, response.text, SHOWN_BODY_CHARS)}",
            timed_out=late,
            status=response.status_code,
            reply=response.content,
            headers=response.headers,
        )
    try:
        return response.json()
    except ValueError as exc:
        raise TransportProblem("reply is not JSON") from exc


def served_context_window(endpoint: Endpoint, timeout_s: float = 10.0) -> int | None:
    """``max_model_len`` from the endpoint's ``/v1/models`` card for its model (vLLM gives
    one; most clouds do not): None when the endpoint does not say."""
    url = joined(endpoint.base_url, "/models")
    headers = {"authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s, trust_env=not endpoint.direct)
        cards = response.json().get("data") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return window_of(cards, endpoint.model)


def window_of(cards: Any, model: str) -> int | None:
    """The card for `model` (or the only card) in a `/v1/models` list, and its
    `max_model_len`. The router learns its backends' windows with it too."""
    if not isinstance(cards, list):
        return None
    cards = [c for c in cards if isinstance(c, dict)]
    chosen = [c for c in cards if c.get("id") == model] or (cards if len(cards) == 1 else [])
    value = chosen[0].get("max_model_len") if chosen else None
    return value if isinstance(value, int) and value > 0 else None
