"""Counter series a first event would create exist at 0 before it (`router.metric_zeros`).

Born at 1, a series has no earlier sample and `increase()` never counts its first step: a
dead primary's one fallback before its circuit opened never showed (found in review).
`test_first_event_prometheus.py` shows the same with a real Prometheus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import yaml
from dashboard_queries import dashboard_files

from router import attempt_errors, errors, metric_zeros, reload
from router.backend_refused import BackendRefused
from router.config import parse
from router.metric_labels import (
    ATTEMPT_ERROR_KINDS,
    ERROR_KINDS,
    FALLBACK_REASONS,
    REFUSAL_KINDS,
    REFUSAL_STATUSES,
)
from router.metrics import Metrics
from tests.harness import INTENTS, Running, Scrape, config_for, router, scrape, simulator

A, F = "smf_router_attempts_total", "smf_router_fallbacks_total"


def series(now: Scrape, name: str) -> dict[frozenset[tuple[str, str]], float]:
    return {labels: value for (n, labels), value in now.samples.items() if n == name}


def attempt_series(now: Scrape) -> dict[tuple[str, str, str, str], float]:
    return {
        (d["backend"], d["tier"], d["outcome"], d["error_kind"]): value
        for labels, value in series(now, A).items()
        for d in [dict(labels)]
    }


def pairs(now: Scrape) -> set[tuple[str, str]]:
    return {
        (d["from_backend"], d["to_backend"]) for labels in series(now, F) for d in [dict(labels)]
    }


def three_backends(tmp_path: Path, cloud: Running, dead_port: int) -> dict[str, Any]:
    """`local` and `cloud` share the routes but `coding`'s, which is local then `spare` (down)."""
    dead = Running(f"http://127.0.0.1:{dead_port}/v1", f"http://127.0.0.1:{dead_port}")
    routes = {i: ["cloud", "local"] for i in INTENTS} | {"coding": ["local", "spare"]}
    servers = {"local": cloud, "cloud": cloud, "spare": dead}
    config = config_for(servers, tmp_path, routes=routes).model_dump(mode="json")
    for backend in config["backends"]:
        if backend["name"] == "spare":
            backend["tier"] = "local"
    return config


def test_each_backends_attempts_and_each_routes_fallbacks_start_at_zero_then_follow_reloads(
    tmp_path: Path, dead_port: int
) -> None:
    with simulator(profile="cloud", model="cloud-model") as cloud:
        data = three_backends(tmp_path, cloud, dead_port)
        with router(parse(data)) as proxy:
            before = scrape(proxy.root)  # no request yet
            attempts = attempt_series(before)
            kinds = {("ok", "none"), *(("error", k) for k in ATTEMPT_ERROR_KINDS)}
            for backend, tier in (("local", "local"), ("cloud", "cloud"), ("spare", "local")):
                assert {(o, k) for b, t, o, k in attempts if (b, t) == (backend, tier)} == kinds
            assert set(attempts.values()) == {0}
            # ordered pairs within a route, both ways (a sticky or skipped backend reorders)
            shared = {
                ("local", "spare"),
                ("spare", "local"),
                ("cloud", "local"),
                ("local", "cloud"),
            }
            assert pairs(before) == shared
            down = {"from_backend": "local", "to_backend": "spare"}
            for reason in FALLBACK_REASONS:
                assert before.get(F, **down, reason=reason) == 0
            assert len(attempts) + len(series(before, F)) == 3 * 16 + 4 * 14
            # so Grafana's $backend offers `spare`, down from the start, which ends no request
            for metric in backend_variable_metrics():
                shown = {dict(labels)["backend"] for labels in series(before, metric)}
                assert shown == {"local", "cloud", "spare"}, metric

            # the one request `spare` ever gets fails: its count goes on after the reload
            ask = {"model": "spare", "messages": [{"role": "user", "content": "hi"}]}
            assert httpx.post(f"{proxy.url}/chat/completions", json=ask).status_code == 502
            failed = {"backend": "spare", "tier": "local", "outcome": "error"}
            assert scrape(proxy.root).get(A, **failed, error_kind="unreachable") == 1

            # `spare` goes, `cloud` moves to the local tier, `extra` comes
            routes = {i: ["cloud", "local"] for i in INTENTS} | {"coding": ["local", "extra"]}
            kept = [b for b in data["backends"] if b["name"] != "spare"]
            new = [{**b, "tier": "local"} if b["name"] == "cloud" else b for b in kept]
            new.append({**kept[0], "name": "extra", "tier": "cloud"})
            path = tmp_path / "router.yaml"
            path.write_text(yaml.safe_dump({**data, "backends": new, "routes": routes}))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200

            after = attempt_series(scrape(proxy.root))
            # a zero no config can produce goes; a count stays (history, as before)
            assert {(b, t) for b, t, _, _ in after} == {
                ("local", "local"),
                ("cloud", "local"),
                ("extra", "cloud"),
                ("spare", "local"),
            }
            assert {k: v for k, v in after.items() if k[0] == "spare"} == {
                ("spare", "local", "error", "unreachable"): 1
            }
            assert {(o, k) for b, _, o, k in after if b == "extra"} == kinds
            assert pairs(scrape(proxy.root)) == {
                ("local", "extra"),
                ("extra", "local"),
                ("cloud", "local"),
                ("local", "cloud"),
            }


def backend_variable_metrics() -> set[str]:
    """The metric every dashboard's `$backend` lists the values of (`label_values(m, backend)`)."""
    found = set()
    for path in dashboard_files():
        for var in json.loads(path.read_text())["templating"]["list"]:
            if var["name"] == "backend":
                query = var["query"]["query"]
                assert query.startswith("label_values(") and query.endswith(", backend)"), query
                found.add(query.removeprefix("label_values(").removesuffix(", backend)"))
    assert found
    return found


def test_the_routers_refusals_start_at_zero(tmp_path: Path, dead_port: int) -> None:
    with simulator(profile="cloud", model="cloud-model") as cloud:
        data = three_backends(tmp_path, cloud, dead_port)
        with router(parse(data)) as proxy:
            before = scrape(proxy.root)
            refused = {"intent": "none", "outcome": "client_error"}
            for kind in REFUSAL_KINDS:
                assert before.get("smf_router_errors_total", **refused, kind=kind) == 0
            rejected = series(before, "smf_router_rejected_requests_total")
            assert set(rejected.values()) == {0}
            shown = {(dict(k)["api"], dict(k)["status"]) for k in rejected}
            apis = ("chat", "completions", "responses", "messages", "other")
            only_other = {("other", "405"), ("other", "431")}
            assert shown == {(a, s) for a in apis for s in REFUSAL_STATUSES} | only_other


def upstream_errors(
    cls: type[attempt_errors.UpstreamError] = attempt_errors.UpstreamError,
) -> list[type[attempt_errors.UpstreamError]]:
    """`cls` and its subclasses: those of modules imported (`BackendRefused` is in its own,
    imported above, not through whatever else this module happens to import)."""
    return [cls, *(sub for c in cls.__subclasses__() for sub in upstream_errors(c))]


def test_the_kinds_created_at_zero_are_those_the_code_can_give() -> None:
    """Each upstream error's kind (a timeout's three) and a cancellation can end an attempt;
    those retried move on to the next backend; each refusal's code names its kind."""
    timeouts = {"timeout", "first_token_timeout", "stall"}
    assert BackendRefused in upstream_errors()
    assert set(ATTEMPT_ERROR_KINDS) == {c.kind for c in upstream_errors()} | timeouts | {
        "cancelled"
    }
    retried = {c.kind for c in upstream_errors() if c.retryable}
    assert set(FALLBACK_REASONS) == retried | timeouts
    refusals = [
        errors.BadRequest,
        errors.BodyTooLarge,
        errors.UnsupportedEncoding,
        errors.BodyTimeout,
        errors.Forbidden,
        errors.NotFound,
    ]
    assert set(REFUSAL_KINDS) == {c.code or "invalid_request" for c in refusals}
    assert set(REFUSAL_KINDS) <= ERROR_KINDS
    statuses = {str(c.status) for c in [*refusals, errors.Unauthorized]}
    assert statuses == set(REFUSAL_STATUSES)


FR, SC = "smf_router_fallback_requests_total", "smf_router_shadow_comparisons_total"


def test_a_reload_with_the_same_config_keeps_series_a_request_created_at_zero(
    tmp_path: Path,
) -> None:
    """A request that did not move adds 0 to `fallback_requests_total`: on a backend forced
    by name (no route of two) its series is the request's own, at 0. A reload with the same
    config took every series at 0 for an unused zero of its own and removed it, and a panel
    of the share of requests that needed a fallback lost it (found in review)."""
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path)
        with router(config) as proxy:
            ask = {"model": "local", "messages": [{"role": "user", "content": "hi"}]}
            assert httpx.post(f"{proxy.url}/chat/completions", json=ask).status_code == 200
            forced = {"route": "local", "backend": "local", "tier": "local"}
            (intent,) = {dict(k)["intent"] for k in series(scrape(proxy.root), FR)}
            assert scrape(proxy.root).get(FR, intent=intent, **forced) == 0
            path = tmp_path / "router.yaml"
            path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            assert scrape(proxy.root).get(FR, intent=intent, **forced) == 0


def test_a_reload_keeps_the_results_a_shadow_pairs_first_comparison_created() -> None:
    """A live/shadow pair the config walk does not foresee (a stored response's backend)
    has its three results created by its first comparison, its own at 1 and the others at 0:
    a reload with the same config removed those two, and the agreement panel showed no
    `agreed` bar for a pair that had always disagreed, rather than 0% (found in review)."""
    config = parse(
        {
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "m",
                },
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "c",
                },
            ]
        }
    )
    metrics = Metrics()
    metric_zeros.configured(metrics, config)
    metrics.shadow_compared("coding", "local", "cloud", False)
    metric_zeros.expecting(metrics, config)()  # a reload with the same config
    pair = {"intent": "coding", "live_backend": "local", "shadow_backend": "cloud"}
    results = {
        r: sample(metrics, SC, **pair, result=r) for r in ("agreed", "disagreed", "undecided")
    }
    assert results == {"agreed": 0, "disagreed": 1, "undecided": 0}


def sample(metrics: Metrics, name: str, **labels: str) -> float | None:
    """A sample as `/metrics` would show it, read from `metrics`' registry."""
    return metrics.registry.get_sample_value(name, labels)
