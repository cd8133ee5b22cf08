"""Backend capacity: is a backend too busy to take one more request right now?

Two sources, because each alone is wrong: the router's own in-flight count per backend
(live attempts plus its own shadow replays; exact, but blind to other routers and clients
sharing the GPU) and what vLLM reports on `/metrics` (running, waiting, KV-cache use;
global, but a poll old). `saturation` is the
pure decision; `Capacity` keeps the numbers; `poll_metrics` / `read_models` are the
I/O edge. `/v1/models` cards carry `max_model_len`, learned as the context window, and say
whether the configured model is served at all (`unlisted`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from evals.endpoint import window_of
from evals.urls import joined
from router import vllm_metrics
from router.config import Backend as BackendSettings
from router.probe import auth_headers, root_of
from router.vllm_metrics import VllmCapacity

EWMA_WEIGHT = 0.2  # how fast the mean service time follows recent attempts


@dataclass(slots=True)
class Load:
    """What is known about one backend's load."""

    inflight: int = 0  # live attempts
    # Calls the router makes for itself (shadow replays, their judge): no attempts, but
    # they hold the backend's sequence slots as much as live ones do.
    replays: int = 0
    polled: VllmCapacity | None = None
    polled_at: float = float("-inf")
    service_s: float | None = None  # mean duration of a successful attempt (EWMA)
    context_window: int | None = None  # learned from /v1/models


def expected_wait(waiting: float, slots: float, service_s: float) -> float:
    """Seconds a new request would queue behind `waiting` others on `slots` sequence slots."""
    return (waiting + 1) / max(slots, 1.0) * service_s


def saturation(
    limit: int | None, load: Load, now: float, max_wait_s: float, fresh_s: float
) -> str | None:
    """Why a new request should not go to this backend now, or None when it may.

    `limit` is the configured concurrency (e.g. vLLM's `max_num_seqs`); live attempts and
    the router's own replays both fill it, or a live request queued on the GPU behind a
    shadow the count did not see. A poll older than `fresh_s` is ignored: stale numbers must
    not keep traffic away from a backend.
    """
    if limit is not None and load.inflight + load.replays >= limit:
        return "inflight_limit"
    polled = fresh_poll(load, now, fresh_s)
    if polled is None:
        return None
    running, waiting = polled.running or 0.0, polled.waiting or 0.0
    if waiting <= 0:
        return None
    if load.service_s is None:
        return "queue"  # a queue of unknown length: assume it is long
    slots = float(limit) if limit is not None else max(running, 1.0)
    return "queue" if expected_wait(waiting, slots, load.service_s) > max_wait_s else None


def queued(limit: int | None, load: Load, now: float, fresh_s: float, alive: bool) -> bool:
    """Whether a live attempt on this backend may be waiting in its queue
    (`router.silence.Life`): the others, live or the router's own, fill its configured
    concurrency, or its last poll, fresh, counts requests waiting (vLLM sends a queued stream
    its headers alone). Unlike `saturation`, the attempt asking is not counted (a backend
    with `max_concurrency: 1` would always seem full to its one request) and any queue is
    one, however short: the question is whether a silence is explained, not where to send.
    The others count only when the backend was `alive` (heard of late): others hung on a
    dead backend fill its slots as well, and two clients at a time on a dead backend with
    `max_concurrency: 1` excused every hang-up, its circuit never opening (found in
    re-review). Its own poll's queue needs no such proof."""
    if alive and limit is not None and load.inflight - 1 + load.replays >= limit:
        return True
    polled = fresh_poll(load, now, fresh_s)
    return polled is not None and (polled.waiting or 0.0) > 0


def generating(load: Load, now: float, fresh_s: float) -> bool:
    """Whether the backend's last poll, fresh, counts requests running: its engine is at
    work, on the request asking (a whole reply, which shows nothing of its engine's work
    until it is complete: `router.silence.Life.busy`) or on others. The engine's own word,
    so no proof of life is asked, unlike for the router's in-flight counts (`queued`): a
    request hung short of the engine is not counted there."""
    polled = fresh_poll(load, now, fresh_s)
    return polled is not None and (polled.running or 0.0) > 0


def fresh_poll(load: Load, now: float, fresh_s: float) -> VllmCapacity | None:
    """The backend's last poll, when no older than `fresh_s`; else None: stale numbers
    neither keep traffic away (`saturation`) nor explain a silence (`queued`, `generating`)."""
    if load.polled is None or now - load.polled_at > fresh_s:
        return None
    return load.polled


class Capacity:
    """In-flight counts (an attempt judge), service times, polled gauges, windows.

    `configured` says whether a backend name is in the running config. An entry for a name
    it does not hold (a replay queued before a reload removed its target) goes with its
    last call: kept, every renaming reload left one behind for the life of the process.
    """

    def __init__(
        self, clock: Callable[[], float], configured: Callable[[str], bool] = lambda _: True
    ) -> None:
        self.clock = clock
        self.configured = configured
        self.loads: dict[str, Load] = {}

    def load(self, backend: str) -> Load:
        found = self.loads.get(backend)
        if found is None:
            found = self.loads[backend] = Load()
        return found

    def forget(self, backend: str) -> None:
        """What was learned about a backend a reload removed or pointed at another server,
        its load too: the calls still running there run on the old server, and counted on,
        they kept a re-pointed backend full, its live traffic going to the cloud, until they
        ended. Their ends leave the new count alone: attempts on the old server are not
        reported (`Retirement.elsewhere`), and a replay gives its slot back to the `Load` it
        took (`replay_started`). A reload that changed other settings forgets nothing: the
        calls running there are the same server's load (`Resilience.reloaded`)."""
        self.loads.pop(backend, None)

    def attempt_started(self, backend: str, tier: str) -> None:
        self.load(backend).inflight += 1

    def attempt_finished(
        self, backend: str, tier: str, outcome: str, error_kind: str | None
    ) -> None:
        load = self.loads.get(backend)
        if load is None:
            return
        load.inflight = max(0, load.inflight - 1)
        self._drop_if_gone(backend, load)

    def replay_started(self, backend: str) -> Callable[[], None]:
        """A call of the router's own (a shadow replay, its judge) took one of the slots;
        what gives it back, to the load it was counted in (a reload since may have started
        the backend's over)."""
        load = self.load(backend)
        load.replays += 1
        return functools.partial(self._replay_finished, backend, load)

    def _replay_finished(self, backend: str, load: Load) -> None:
        load.replays = max(0, load.replays - 1)
        if self.loads.get(backend) is load:
            self._drop_if_gone(backend, load)

    def _drop_if_gone(self, backend: str, load: Load) -> None:
        if load.inflight == 0 and load.replays == 0 and not self.configured(backend):
            del self.loads[backend]  # a reload removed it: this was its last call

    def served(self, backend: str, seconds: float) -> None:
        """A successful attempt took `seconds` (from the finished record); nothing for a
        backend a reload removed since (it would stay, and nothing would read it)."""
        if not self.configured(backend):
            return
        load = self.load(backend)
        if load.service_s is None:
            load.service_s = seconds
        else:
            load.service_s += EWMA_WEIGHT * (seconds - load.service_s)

    def polled(self, backend: str, reading: VllmCapacity) -> None:
        load = self.load(backend)
        load.polled, load.polled_at = reading, self.clock()

    def saturated(self, settings: BackendSettings, max_wait_s: float, fresh_s: float) -> str | None:
        load = self.load(settings.name)
        return saturation(settings.max_concurrency, load, self.clock(), max_wait_s, fresh_s)

    def queued(self, settings: BackendSettings, fresh_s: float, alive: bool) -> bool:
        """`queued` for a backend; never one without a load, which a reload removed (`load`
        made one for it again, and nothing removed that)."""
        load = self.loads.get(settings.name)
        if load is None:
            return False
        return queued(settings.max_concurrency, load, self.clock(), fresh_s, alive)

    def generating(self, settings: BackendSettings, fresh_s: float) -> bool:
        """`generating` for a backend; never one without a load (as `queued`)."""
        load = self.loads.get(settings.name)
        return load is not None and generating(load, self.clock(), fresh_s)


def metrics_url(settings: BackendSettings) -> str | None:
    """Where a backend's vLLM `/metrics` are: configured, or beside `/v1` for local ones."""
    if settings.metrics_url:
        return settings.metrics_url
    if settings.tier == "local" and settings.base_url:
        return joined(root_of(settings), "/metrics")
    return None


async def poll_metrics(
    client: httpx.AsyncClient, settings: BackendSettings, timeout_s: float
) -> VllmCapacity | None:
    """Read vLLM's capacity gauges; None when unreachable or not a vLLM server."""
    url = metrics_url(settings)
    if url is None:
        return None
    try:
        response = await client.get(url, headers=auth_headers(settings), timeout=timeout_s)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    reading = vllm_metrics.parse(response.text)
    return reading if reading.running is not None or reading.waiting is not None else None


@dataclass(frozen=True, slots=True)
class ModelList:
    """What a backend's `/v1/models` answered: its status, and the cards of a 200 (None
    when the body was no list of cards)."""

    status: int
    cards: list[dict[str, Any]] | None = None


SHOWN_IDS = 5  # served ids a warning names: vLLM serves one or a few, a cloud hundreds
SHOWN_ID_CHARS = 100  # an id is the server's text: bounded in the log line it goes to


def unlisted(model: str, listing: ModelList, base_url: str = "") -> str | None:
    """Why requests naming `model` will likely be refused, from the `/models` answer; None
    when it lists the model or says nothing either way (None for any answer but a 200 with
    cards or a 404). vLLM answers a model it does not serve with a 404, which the router
    takes for the backend's configuration and falls back on: a wrong name sent every local
    request to the paid cloud with nothing said at start (found in a fresh-clone review).
    A 404 is read as a missing `/v1` only where `base_url` does not end in one: a gateway's
    or a deployment-scoped URL (Azure's `.../deployments/<name>`) may list no models at all."""
    if listing.status == 404:
        path = urlsplit(base_url).path.rstrip("/")
        if path.endswith("/v1") or "/deployments/" in f"{path}/":
            return None
        return (
            "its GET /models answered 404: its base_url may lack `/v1` "
            "(vLLM serves http://host:8000/v1), and then its requests fail the same way"
        )
    if listing.cards is None:
        return None
    ids = [c["id"] for c in listing.cards if isinstance(c.get("id"), str)]
    if model in ids:
        return None
    shown = ", ".join(repr(i[:SHOWN_ID_CHARS]) for i in ids[:SHOWN_IDS]) or "none"
    if len(ids) > SHOWN_IDS:
        shown += f" and {len(ids) - SHOWN_IDS} more"
    return (
        f"its server does not list model {model!r} (it serves {shown}): requests naming it "
        "will likely be refused (404) and go to the fallback; set the backend's `model` "
        "(SMF_LOCAL_MODEL / SMF_CLOUD_MODEL without a config file) to a served id"
    )


async def read_models(
    client: httpx.AsyncClient, settings: BackendSettings, timeout_s: float
) -> ModelList | None:
    """The backend's `/v1/models` answer; None when it gave none (unreachable, no URL)."""
    if not settings.base_url:
        return None
    url = joined(settings.base_url, "/models")
    try:
        response = await client.get(url, headers=auth_headers(settings), timeout=timeout_s)
        if response.status_code != 200:
            return ModelList(response.status_code)
        cards = response.json().get("data")
    except httpx.HTTPError:
        return None
    except (ValueError, AttributeError):
        return ModelList(200)
    if not isinstance(cards, list):
        return ModelList(200)
    return ModelList(200, [c for c in cards if isinstance(c, dict)])


async def read_context_window(
    client: httpx.AsyncClient, settings: BackendSettings, timeout_s: float
) -> int | None:
    """`max_model_len` of the served model from `/v1/models` (vLLM puts it on each card)."""
    listing = await read_models(client, settings, timeout_s)
    return window_of(listing.cards, settings.model) if listing is not None else None
