"""The config's sections but the backends: keys, classifier, ledger, shadow, canary, resilience
and server settings, each checked on its own.

Its own module as `router.config_backend` is: `router.config` keeps the whole model, loading
and the checks across sections (a route naming a backend, a canary floor within reach of the
window), which need more than one section.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from evals import results
from router.config_backend import Count, Number, Strict
from router.config_checks import (
    DAY_S,
    HOUR_S,
    at_most,
    check_entries,
    check_host_name,
    check_origin,
    known_intents,
)

Fraction = Annotated[Number, Field(ge=0, le=1)]
# A file or directory the router reads or writes, with a leading `~` as a shell reads it:
# `ledger.path: ~/smf-ledger` created a directory named `~` in the working directory, and
# `canary.suites` or a baseline under `~` was "no such" file (found in review). Expanded
# at load, so `config check` shows the path used.
LocalPath = Annotated[str, AfterValidator(os.path.expanduser)]
# The longest waits, deadlines and intervals. Unbounded, `resilience.open_s: 1e300` loaded
# and a refusal's Retry-After header carried a 300-digit number (found in review).
_HOUR = at_most(HOUR_S, "an hour")
_DAY = at_most(DAY_S, "a day")


class RouterKey(Strict):
    """A caller's key: stored as a SHA-256 hex digest, never in the clear."""

    name: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    private: bool = False  # every request from this caller stays on the local tier
    admin: bool = False


class Auth(Strict):
    keys: list[RouterKey] = Field(default_factory=list)
    allow_route_header: bool = True


class ClassifierSettings(Strict):
    min_confidence: Number = Field(0.35, ge=0, le=1)
    default_route: str = "coding"


class LedgerSettings(Strict):
    path: LocalPath = Field("./var/ledger", min_length=1)  # '' would write the ledger into the cwd
    # The writer thread waits this long on a threading.Event: 1e10 ended it with an
    # OverflowError while the server looked ready, and records piled up unwritten (found in
    # review). An hour is already a long time for records to wait in memory.
    flush_interval_s: Annotated[Number, _HOUR] = Field(1.0, gt=0)
    store_text: bool = False
    # No upper bound: a config with 99999 ("forever") started before, and retention drops
    # nothing for a number too large to subtract (router.ledger.compaction.apply_retention)
    text_retention_days: Count = Field(30, ge=1)
    retention_days: Count = Field(730, ge=1)
    # The router's retention (records' and texts') and compaction, a minute after start, then
    # hourly (router.maintenance). Off where one job does it for every replica (the Kubernetes
    # CronJob): N replicas compacting one shared ledger at once are safe only where its storage
    # honours flock across machines. Off with store_text and no such job, texts are kept: a warning.
    housekeeping: bool = True


class ShadowSettings(Strict):
    rates: dict[str, Fraction] = Field(default_factory=dict)  # intent -> fraction
    route_rates: dict[str, Fraction] = Field(default_factory=dict)  # route -> fraction (wins)
    targets: dict[str, str] = Field(default_factory=dict)  # intent -> backend
    allow_cloud_targets: bool = False
    max_concurrency: Count = Field(2, ge=1)
    queue_size: Count = Field(100, ge=1)
    # What queued and replaying jobs may hold in bodies (as received) and live answers: with
    # `queue_size` alone, 100 bodies of 7 MB behind a hanging target took ~770 MB (review).
    queue_bytes: Count = Field(64 * 1024 * 1024, ge=1)
    # Per replay, at most a day as a backend's `total_s`: `1e300` loaded as no deadline of
    # the shadow's own (found in review); no replay needs more than the longest reply.
    timeout_s: Annotated[Number, _DAY] = Field(120.0, gt=0)
    judge_backend: str | None = None
    # Coding: run the fenced asserts of the client's message against both answers. Off by
    # default: that is code any API client wrote, run on this host in the evals sandbox.
    run_request_tests: bool = False

    @property
    def samples(self) -> bool:
        """Any rate above 0: only then is the shadow installed, and its backends asked."""
        return any(r > 0 for r in [*self.rates.values(), *self.route_rates.values()])

    @model_validator(mode="after")
    def _check_intents(self) -> ShadowSettings:
        known_intents("shadow.rates", self.rates)
        known_intents("shadow.targets", self.targets)
        return self


# The longest `canary.interval_s`: `/v1/router/status` shows the next run as a date, and past
# year 9999 (1e300) it answered 500 (found in review). A canary run less than monthly is no
# canary. Also the longest round length believed (`router.canary_lengths`).
MAX_CANARY_INTERVAL_S = 30 * 86400


class CanarySettings(Strict):
    enabled: bool = False
    interval_s: Annotated[Number, at_most(MAX_CANARY_INTERVAL_S, "30 days")] = Field(900.0, gt=0)
    suites: LocalPath | None = None  # a directory; None means the suites shipped in evals/
    sample_per_suite: Count = Field(3, ge=1)
    concurrency: Count = Field(2, ge=1)
    window: Count = Field(20, ge=1)
    min_samples: Count = Field(5, ge=1)  # results in the window before a gate may close
    # Per case, at most a day as a backend's `total_s`: `1e300` loaded as no deadline for a
    # case at all (found in review); no case needs more than the longest reply.
    timeout_s: Annotated[Number, _DAY] = Field(120.0, gt=0)
    floors: dict[str, Fraction] = Field(default_factory=dict)  # intent -> pass-rate floor
    baselines: dict[str, LocalPath] = Field(default_factory=dict)  # backend -> results JSON
    floor_margin: Number = Field(0.15, ge=0, le=1)  # learned floor = baseline lower bound - this

    @model_validator(mode="after")
    def _check_paths(self) -> CanarySettings:
        """Files are checked here, so `config check` catches a typo that would otherwise
        stop `serve` with a traceback."""
        known_intents("canary.floors", self.floors)
        if self.suites is not None and not Path(self.suites).is_dir():
            raise ValueError(f"canary.suites: no such directory {self.suites!r}")
        for backend, path in self.baselines.items():
            if not Path(path).is_file():
                raise ValueError(f"canary.baselines.{backend}: no such file {path!r}")
            try:  # read at start to learn floors: a file that is no results document stops it
                document = results.read(path)
            except results.ResultsError as exc:
                raise ValueError(f"canary.baselines.{backend}: {exc}") from None
            partial = results.partial_note(document)  # floors learned from the cases that
            if partial is not None:  # finished before a Ctrl-C, maybe the easy ones
                raise ValueError(
                    f"canary.baselines.{backend}: {path} holds a {partial}; learn floors from"
                    " a finished run"
                )
        return self


class ResilienceSettings(Strict):
    """Circuit breaking, probing, capacity overflow and sticky conversations."""

    enabled: bool = True  # off: every backend presumed healthy and free (read at start)
    failure_threshold: Count = Field(3, ge=1)  # consecutive failures that open a circuit
    # First wait before a trial; doubles per failed trial. The wait is a refusal's Retry-After.
    open_s: Annotated[Number, _HOUR] = Field(1.0, gt=0)
    max_open_s: Annotated[Number, _HOUR] = Field(8.0, gt=0)  # cap of that wait: bounds probing
    probe_interval_s: Annotated[Number, _DAY] = Field(5.0, gt=0)  # healthy backends' (0 cost)
    probe_timeout_s: Annotated[Number, _HOUR] = Field(2.0, gt=0)
    capacity_poll_s: Annotated[Number, _DAY] = Field(1.0, gt=0)  # vLLM /metrics read interval
    # more expected queueing than this overflows
    max_queue_wait_s: Annotated[Number, _HOUR] = Field(2.0, ge=0)
    models_refresh_s: Annotated[Number, _DAY] = Field(300.0, gt=0)  # /v1/models max_model_len
    # 0 turns sticky conversations off
    sticky_ttl_s: Annotated[Number, at_most(MAX_CANARY_INTERVAL_S, "30 days")] = Field(1800.0, ge=0)
    sticky_max_entries: Count = Field(50_000, ge=1)

    @model_validator(mode="after")
    def _check_open(self) -> ResilienceSettings:
        """`max_open_s` caps the wait, the first one too: `open_s: 30` loaded beside the
        default cap of 8 and waited 8 s, saying nothing (found in review)."""
        if self.open_s > self.max_open_s:
            raise ValueError(
                f"open_s: {self.open_s:g} is more than resilience.max_open_s "
                f"({self.max_open_s:g}), which caps every wait before a trial, the first too: "
                "lower open_s or raise max_open_s"
            )
        return self


class ServerSettings(Strict):
    max_body_bytes: Count = Field(8 * 1024 * 1024, ge=1024)
    # At most a day, the longest `total_s`: `1e300` loaded as no limit to the drain (found in
    # review), what still ran holding a SIGTERM until systemd or Kubernetes killed the router
    # before the ledger flushed, as `drain_s: 0` once did (`router.serve.drain_timeout`).
    drain_s: Annotated[Number, _DAY] = Field(30.0, ge=0)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # uvicorn's proxy-header middleware: X-Forwarded-Proto/-For from --forwarded-allow-ips
    # become the request's scheme and client (what the app sees of them: the scheme of its
    # redirects). Off by default: it costs per request and the router records no client address.
    # It leaves Host alone: without keys the Host the proxy forwards is checked as any
    # (router.api.browsers), so its public name goes in allowed_hosts.
    proxy_headers: bool = False
    # Browser pages from these origins (scheme://host[:port]) may call the router; any other
    # page's request is refused (router.api.browsers: a desk box is reachable from every tab).
    allowed_origins: list[str] = Field(default_factory=list)
    # Host names (no port) a keyless router answers besides IP addresses, localhost and the
    # machine's name: a rebound page sends its own name (router.api.browsers).
    allowed_hosts: list[str] = Field(default_factory=list)

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        return check_entries(origins, check_origin)

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, hosts: list[str]) -> list[str]:
        return check_entries(hosts, check_host_name)
