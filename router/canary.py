"""The canary scheduler: small rotating eval samples against every backend, gating routes.

Every `canary.interval_s` it runs `sample_per_suite` cases of each suite against each
backend directly (not through routing, with the backend's own extras such as thinking off; a
litellm backend through the router's litellm adapter, as live traffic reaches it), at most
`canary.concurrency` in flight per backend, and skips a backend whose circuit is open or
that is waiting out a 429's or an overloaded 503's `Retry-After` (`rate_limited`,
`overloaded`: live routing passes it by, and so does the canary; one that asks for such a
wait during its round is passed by for the rest of it, `router.canary_wait`, and by live
traffic too, `router.backend_waits`), and a local
backend that is saturated rather than adding to its queue. Each case's call holds one of its
backend's slots as load capacity counts (`router.own_load`): uncounted, the canary filled a
local backend that routing saw idle, and live requests queued behind its cases. Results go
to the ledger (`canary_runs`, `canary_results`: `router.canary_rows`, each case's with its
call's tokens and cost, `router.canary_spend`) and to `router.canary_judge`, whose gate book
(`router.gating`) decides the gates that the state source hands the policy. A bug on the way
to one backend (anything but the transport errors the runner maps) costs that backend's
round alone: its cases are errors (`failure_kind` `canary`), logged once per backend and
kind of error. A backend that stops answering, a run's deadline and a stop (SIGTERM) end a
round early (`router.canary_bound`); the sample goes on where the ledger's latest round
ended (`router.canary_rotation`). A router schedules its runs in `router.canary_schedule`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from evals.applicability import Capabilities
from evals.endpoint import Ask, ask
from evals.graders import Executor
from evals.grading import Grader
from evals.results import CaseResult
from evals.runner import run_cases
from evals.sandbox import run_python
from evals.suite import SHIPPED, Case, load, load_warnings
from router import live
from router.backend_state import BackendState
from router.backend_waits import Heard, unheard
from router.backends import Backend, create
from router.bug_log import BugLog
from router.canary_bound import Bounded, RunEnd, Unstarted, cut_short, round_failed
from router.canary_endpoint import ask_backend, endpoint_of
from router.canary_judge import CanaryMetrics, Judge, repointed, unjudged
from router.canary_rotation import resume, rotating_sample
from router.canary_rows import RowSink, run_row, write_round
from router.canary_spans import traced
from router.canary_spend import Pricing, Spend
from router.canary_wait import UntilWait
from router.config import Backend as BackendSettings
from router.config import Config, ConfigError
from router.config_sections import CanarySettings
from router.gating import GateBook
from router.own_load import ReplayObserver, counted
from router.policy import context_window
from router.tracing import Tracing

log = logging.getLogger("smf_router.canary")

# Whether the canary runs is read once, at start. Its cases and gate book follow a hot reload
# (`Canary.prepare`); the sample, concurrency, timeout and the backends are read on each
# run, and the interval at once (a reload wakes the wait, `router.canary_schedule`).
READ_AT_START = ("enabled",)

Runner = Callable[..., Awaitable[list[CaseResult]]]


class Canary:
    """Runs the rounds and owns the gate book; `gated()` is what routing reads.

    In a router, `config` and `adapters` read the running config and backends, so each run
    follows a hot reload and reaches a litellm backend through the very adapter live traffic
    uses; on its own (`smf-router canary`), it takes a config and makes its own adapters.
    Given `history` (the ledger's directory), its first run's sample goes on after the
    ledger's latest round; `deadline_s` bounds each run (None: no deadline). `execute`
    runs code cases' programs (the sandbox), none once a round has ended; its `grader`
    grades the other answers in a process, off the router's event loop (killed at `aclose`).
    `pricing` (in a router, the running config's pricer) prices each case's call for its
    row (`router.canary_spend`); none prices them at $0. `heard` (in a router,
    `router.backend_waits.heard_by`) is told each case's error, and starts for live traffic
    the wait a 429 or an overloaded 503 asks, as a live attempt's does.
    """

    def __init__(
        self,
        config: Config | Callable[[], Config],
        cases: Sequence[Case],
        book: GateBook,
        rows: RowSink | None = None,
        metrics: CanaryMetrics | None = None,
        states: Callable[[], Mapping[str, BackendState]] = dict,
        runner: Runner = run_cases,
        clock: Callable[[], float] = time.time,
        adapters: Callable[[], Mapping[str, Backend]] | None = None,
        observers: Sequence[ReplayObserver] = (),
        history: Path | None = None,
        deadline_s: float | None = None,
        tracing: Tracing | None = None,
        execute: Executor = run_python,
        pricing: Pricing | Callable[[], Pricing | None] | None = None,
        heard: Heard = unheard,
    ) -> None:
        self._config = live.source(config)
        self._pricing = live.source(pricing)  # prices each call (`router.canary_spend`)
        self.heard = heard  # each case's error: the wait it asks live traffic keeps too
        self._shared = adapters
        self.cases = list(cases)
        self.judge = Judge(
            book,
            metrics,
            lambda: [b.name for b in self.backends],
            lambda: {case.suite for case in self.cases},
        )
        self.rows = rows
        self.states = states
        self.runner = runner
        self.execute = execute
        self.grader = Grader()  # one grading process for every run, closed at `aclose`
        self.clock = clock
        self.observers = observers  # the components' list: read at each case
        self.tracing = tracing or Tracing.disabled()  # a span per case asked (`canary_spans`)
        self.runs = 0
        self.last_run: dict[str, dict[str, Any]] = {}
        self.last_results: dict[str, list[CaseResult]] = {}  # each backend's, for the CLI
        self._offsets: dict[str, int] = {}
        self._history = history  # read once, at the first run
        self.deadline_s = deadline_s
        self.stopped: str | None = None  # why `stop` ended the runs
        self._end: RunEnd | None = None  # the current run's
        self._client: httpx.AsyncClient | None = None
        self._client_shape: tuple[float, int] = (0.0, 0)
        self._adapters: dict[str, Backend] = {}  # litellm backends, made on first use
        # A bug in one backend's round (the runner's or an adapter's, beyond the transport
        # errors they map) used to lose every backend's round. Once per backend and kind:
        # the same bug every `interval_s` is no news.
        self._round_bugs = BugLog(log, "the canary round of %s failed; its cases count as errors")

    @property
    def settings(self) -> CanarySettings:
        return self._config().canary

    @property
    def backends(self) -> list[BackendSettings]:
        return list(self._config().backends)

    @property
    def book(self) -> GateBook:
        return self.judge.book

    def gated(self) -> dict[str, frozenset[str]]:
        return self.judge.gated()

    def prepare(self, config: Config) -> Callable[[], None]:
        """A hot reload's part here, checked before the swap: the suites are loaded now (one
        that does not load rejects the reload), and the returned call swaps in the cases and
        retunes the gate book, whose windows keep their results (a dropped suite's go, and
        those of a backend pointed at another server). Loaded whatever `canary.suites` says,
        as start loads them: only a changed path used to be, so a suite deleted from the same
        directory kept running, and one added that `serve` would refuse was "reloaded" (found
        in review)."""
        cases = load_cases(config)
        moved = repointed(self.backends, config.backends)
        retune = self.judge.prepare(self.settings, config.canary, {c.suite for c in cases}, moved)

        def apply() -> None:
            self.cases = list(cases)
            names = {b.name for b in config.backends}
            self.last_run = {b: run for b, run in self.last_run.items() if b in names}
            self.last_results = {b: r for b, r in self.last_results.items() if b in names}
            retune()

        return apply

    async def run_once(self, starting: Callable[[str], Awaitable[None]] | None = None) -> None:
        """One run: the same rotating sample against every backend, backends in parallel.
        None once stopped: a run the schedule started in the stop's loop turn wrote a round
        of "not asked" errors per backend and moved the rotation (found in re-review), and so
        did one stopped while its first run read the ledger's history (found in re-review).
        `starting` is awaited with the run's id as it is about to ask its first case, past
        those checks (the schedule writes its start, `router.canary_starts`)."""
        if self._history is not None:
            history, self._history = self._history, None
            retention_days = self._config().ledger.retention_days
            read = functools.partial(resume, history, self.cases, self.clock(), retention_days)
            self._offsets = await asyncio.to_thread(read)
        if self.stopped is not None:
            return
        run_id = uuid.uuid4().hex[:16]
        if starting is not None:
            await starting(run_id)
            if self.stopped is not None:
                return
        self._end = end = RunEnd(self.deadline_s)
        self.judge.show_open_gates()
        sample = rotating_sample(self.cases, self.settings.sample_per_suite, self._offsets)
        runs = (self._run_backend(b, sample, run_id, end) for b in self.backends)
        await asyncio.gather(*runs)
        self.runs += 1

    def stop(self, why: str) -> None:
        """End the run under way (`why`, e.g. "SIGTERM", is said in its errors): each
        backend's round ends with the cases it finished, the rest as errors, its rows
        written. Runs after it do nothing (`run_once`)."""
        self.stopped = why
        if self._end is not None:
            self._end.stop(why)

    def _skip_reason(self, backend: BackendSettings) -> str | None:
        """Why the backend's round is skipped: it is away as live routing sees it
        (`BackendState.away`; a waiting one, asked anyway, would answer with the 429 live
        traffic met, adding to the provider's count), or it is local and saturated, where
        its cases would queue ahead of live requests (routing keeps a saturated backend
        last, not away; a cloud one takes its few cases)."""
        state = self.states().get(backend.name, BackendState())
        if backend.kind == "openai" and not backend.base_url:
            return "unsupported_kind"
        if (away := state.away()) is not None:
            return away
        if backend.tier == "local" and state.saturated:
            return "saturated"
        return None

    async def _run_backend(
        self, backend: BackendSettings, sample: list[Case], run_id: str, end: RunEnd
    ) -> None:
        started, began = self.clock(), time.monotonic()
        reason = self._skip_reason(backend)
        results: list[CaseResult] = []
        spend = Spend(backend, self._pricing())  # the round's settings' pricer: its calls'
        # a wait the round meets, told to live traffic too (`heard`)
        told = functools.partial(self.heard, backend)
        waits = UntilWait(backend.name, backend.retry_after_max_s, told)
        if reason is None:
            graded: list[CaseResult] = []
            try:
                results = await self._probe(backend, sample, end, graded.append, spend, waits)
                results, reason = waits.kept(results), waits.asked
            except asyncio.CancelledError:  # past a stop's wait: what it graded still counts
                results = waits.kept(cut_short(sample, graded, end.why or "cancelled"))
                self.last_results[backend.name] = results
                took = time.monotonic() - began
                self._record(backend, run_id, started, took, results, waits.asked, spend)
                raise
            except Exception as exc:  # this backend's round alone: the others' results stand
                self._round_bugs.failed(backend.name, exc)
                results = [round_failed(case, exc) for case in sample]
        else:
            log.info("canary: skipped backend %s (%s)", backend.name, reason)
        took = time.monotonic() - began
        summary = self._record(backend, run_id, started, took, results, reason, spend)
        why = unjudged(backend, self.backends)
        if why is not None:  # its rows stay in the ledger: the run did happen
            log.info("canary: backend %s %s during its run; not judged", backend.name, why)
            return
        self.last_run[backend.name] = summary
        self.last_results[backend.name] = results
        self.judge.judge(backend.name, results, started, skipped=reason)

    async def _probe(
        self,
        backend: BackendSettings,
        sample: list[Case],
        end: RunEnd,
        on_result: Callable[[CaseResult], None],
        spend: Spend,
        waits: UntilWait,
    ) -> list[CaseResult]:
        state = self.states().get(backend.name, BackendState())
        endpoint = endpoint_of(backend)
        client: httpx.AsyncClient | None = None  # none for an adapter
        send = self._ask_for(backend)
        if send is None:
            client = await self._http()
            send = functools.partial(ask, client, endpoint)
        send = spend.wrap(send)  # each reply's usage and time, for the case's row
        send = traced(self.tracing, backend, send)  # a span per case asked, tracing on
        return await self.runner(
            sample,
            endpoint,
            self.settings.concurrency,
            self.settings.timeout_s,
            thinking=None,  # the backend's own extra_body decides (e.g. thinking off)
            capabilities=Capabilities(context_window=context_window(state, backend)),
            client=client,
            on_result=on_result,
            # each call as load, within the round's bounds (`router.canary_bound`)
            ask_one=Bounded(waits.wrap(counted(self.observers, backend.name, send)), end),
            execute=Unstarted(self.execute, end),  # no program starts once the round ended
            grader=self.grader,
        )

    async def _http(self) -> httpx.AsyncClient:
        """The pooled client, rebuilt when a reload changed its timeout or pool size (they
        are read on each run). Like live traffic it goes direct, whatever HTTP_PROXY says."""
        limit = self.settings.concurrency * max(1, len(self.backends))
        shape = (self.settings.timeout_s, limit)
        if self._client is not None and self._client_shape != shape:
            await self._client.aclose()
            self._client = None
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.settings.timeout_s),
                limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit),
                trust_env=False,
            )
            self._client_shape = shape
        return self._client

    def _ask_for(self, backend: BackendSettings) -> Ask | None:
        """How cases reach a backend: over HTTP when it speaks chat (None), else through the
        router's litellm adapter (Anthropic and other providers with their own wire format)."""
        if backend.kind != "litellm":
            return None
        shared = self._shared().get(backend.name) if self._shared else None
        if shared is not None and shared.settings == backend:
            return functools.partial(ask_backend, shared)
        adapter = self._adapters.get(backend.name)
        if adapter is None:
            adapter = self._adapters[backend.name] = create(backend)
        return functools.partial(ask_backend, adapter)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        adapters, self._adapters = self._adapters, {}
        for adapter in adapters.values():
            await adapter.aclose()
        await self.grader.aclose()

    def _record(
        self,
        backend: BackendSettings,
        run_id: str,
        ts: float,
        duration: float,
        results: list[CaseResult],
        reason: str | None,
        spend: Spend,
    ) -> dict[str, Any]:
        """The run's rows to the ledger (`router.canary_rows`), each result's with what its
        call cost (`spend`); returns its summary (a `last_run` entry)."""
        summary = run_row(backend, run_id, ts, duration, results, reason)
        if self.rows is not None:
            write_round(self.rows, summary, results, spend.columns)
        return summary

    def status(self) -> dict[str, Any]:
        """The `canary` section of `/v1/router/status`."""
        return {
            "interval_s": self.settings.interval_s,
            "runs": self.runs,
            "last_run": self.last_run,
            **self.judge.status(),
        }


def load_cases(config: Config, warn: Callable[[str], None] = log.warning) -> list[Case]:
    """The configured suites; one that does not load is the config's error, named so. A case
    that loads N/A for a mistake (`evals.suite_flaws`), or runs but likely not as meant
    (`evals.suite_notes`), is said to `warn`, not refused."""
    try:
        cases = load(Path(config.canary.suites) if config.canary.suites else SHIPPED)
    except (OSError, ValueError) as exc:  # SuiteError is a ValueError
        raise ConfigError(f"canary.suites: {exc}") from None
    for warning in load_warnings(cases):
        warn(f"canary.suites: {warning}")
    return cases
