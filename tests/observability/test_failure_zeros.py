"""A failed request's series exist at 0 before the first failure (`router.metric_zeros`).

One failed math request read 1 in `errors_total{intent="math",outcome="upstream_error",
kind="server_error"}` and 0 in `increase()` (found in review, with a real Prometheus): born
at 1, a series has no earlier sample. So were `requests_total`'s failed outcomes,
`fallback_requests_total` and a shadow pair's result. `test_first_event_prometheus.py`
shows the same request with a real Prometheus.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import yaml
from test_metric_zeros import series, upstream_errors

from router import attempt_errors, blame, errors, reload
from router.metric_labels import FAILED_OUTCOMES, FAILURES, SHADOW_RESULTS
from tests.harness import INTENTS, Running, Scrape, config_for, router, scrape, simulator

E, R = "smf_router_errors_total", "smf_router_requests_total"
FR, SC = "smf_router_fallback_requests_total", "smf_router_shadow_comparisons_total"
EVERY_INTENT = (*INTENTS, "unknown")


def keyed(now: Scrape, name: str, *labels: str) -> dict[tuple[str, ...], float]:
    return {tuple(dict(k)[x] for x in labels): v for k, v in series(now, name).items()}


def requests_(now: Scrape) -> dict[tuple[str, ...], float]:
    """`requests_total`'s failed ones (those that end well: `test_served_zeros.py`)."""
    every = keyed(now, R, "intent", "route", "backend", "tier", "outcome", "stream")
    return {k: v for k, v in every.items() if k[4] in FAILED_OUTCOMES}


def moved(now: Scrape) -> dict[tuple[str, ...], float]:
    return keyed(now, FR, "intent", "route", "backend", "tier")


def shadowed(now: Scrape) -> dict[tuple[str, ...], float]:
    return keyed(now, SC, "intent", "live_backend", "shadow_backend", "result")


MATH_FAILED = ("math", "math", "none", "none", "upstream_error", "false")


def test_failed_requests_series_start_at_zero_then_follow_reloads(
    tmp_path: Path, dead_port: int
) -> None:
    """The default routes (math: cloud, then local); local is down."""
    dead = Running(f"http://127.0.0.1:{dead_port}/v1", f"http://127.0.0.1:{dead_port}")
    with simulator(profile="cloud", model="cloud-model") as cloud:
        shadow = {"rates": {"math": 1.0}, "targets": {"math": "local"}}
        config = config_for({"local": dead, "cloud": cloud}, tmp_path, shadow=shadow)
        with router(config) as proxy:
            before = scrape(proxy.root)
            # each intent × each failure on the service's side; the refusals, as before, and
            # a bug met before the plan (intent none, no kind)
            failures = {k: v for k, v in keyed(before, E, "intent", "outcome", "kind").items()}
            assert {k for k in failures if k[0] != "none"} == {
                (i, o, k) for i in EVERY_INTENT for o, k in FAILURES
            }
            assert ("none", "router_error", "none") in failures
            assert set(failures.values()) == {0} and len(failures) == 112 + 6 + 1
            # (intent, route) × no backend × both outcomes × both streams, and a stream cut
            # after its backend answered: 30 ways on the default routes, each backend forced
            # by name with any intent; math's route takes math alone. And a bug met before
            # the plan, with both `stream` values
            failed = requests_(before)
            assert set(failed.values()) == {0} and len(failed) == 164 + 2
            assert ("none", "none", "none", "none", "router_error", "false") in failed
            assert MATH_FAILED in failed
            assert ("math", "math", "local", "local", "upstream_error", "true") in failed
            assert ("unknown", "local", "none", "none", "router_error", "true") in failed
            assert ("math", "math", "local", "local", "upstream_error", "false") not in failed
            assert not [k for k in failed if k[1] == "math" and k[0] != "math"]
            # where a request can end after a move, on a route of two: 14 (intent, route) × 3
            ends = moved(before)
            assert set(ends.values()) == {0} and len(ends) == 42
            assert {("math", "math", "local", "local"), ("math", "math", "none", "none")} <= set(
                ends
            )
            assert not [k for k in ends if k[1] in ("local", "cloud")]  # forced: never moves
            # math served by the cloud is replayed on local; served by local, on itself: never
            assert shadowed(before) == {("math", "cloud", "local", r): 0 for r in SHADOW_RESULTS}

            cloud.control("faults", {"fault": "server_error:500"})
            ask = {"model": "math", "messages": [{"role": "user", "content": "2+2?"}]}
            assert httpx.post(f"{proxy.url}/chat/completions", json=ask).status_code == 502
            after = scrape(proxy.root)
            assert after.get(E, intent="math", outcome="upstream_error", kind="server_error") == 1
            assert requests_(after)[MATH_FAILED] == 1
            assert moved(after)[("math", "math", "none", "none")] == 1

            # math's route loses local; coding, not math, is shadowed
            data = config.model_dump(mode="json")
            data["routes"]["math"] = ["cloud"]
            data["shadow"] = {"rates": {"coding": 1.0}, "targets": {"coding": "local"}}
            path = tmp_path / "router.yaml"
            path.write_text(yaml.safe_dump(data))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            reloaded = scrape(proxy.root)
            # a zero the config can no longer produce goes; a count stays
            failed = requests_(reloaded)
            assert failed[MATH_FAILED] == 1
            assert ("math", "math", "local", "local", "upstream_error", "true") not in failed
            assert {k: v for k, v in moved(reloaded).items() if k[1] == "math"} == {
                ("math", "math", "none", "none"): 1
            }
            assert shadowed(reloaded) == {
                ("coding", "cloud", "local", r): 0 for r in SHADOW_RESULTS
            }
            assert len(series(reloaded, E)) == 112 + 6 + 1  # a closed set: as it was
            assert ("none", "none", "none", "none", "router_error", "true") in failed


def test_the_failures_created_at_zero_are_those_the_code_can_give() -> None:
    """A planned request fails on the service's side with a backend's kind (a timeout's
    three; a 4xx passed through after a backend's failure), with every backend skipped, or
    with a bug of ours: `RouterFault`'s kind while sending, none anywhere else. Not with a
    backend's context-length refusal: the client's, or recorded as the failure after it
    (`blame`)."""
    timeouts = {"timeout", "first_token_timeout", "stall"}
    backends = {c.kind for c in upstream_errors() if c is not attempt_errors.RouterFault} | timeouts
    assert {c.kind for c in upstream_errors(attempt_errors.ContextTooLong)} == blame.CONTEXT_KINDS
    upstream = {k for o, k in FAILURES if o == "upstream_error"}
    assert upstream == (backends - blame.CONTEXT_KINDS) | {errors.NoBackendAvailable.code}
    assert errors.error_kind(errors.internal_error()) is None
    assert {k for o, k in FAILURES if o == "router_error"} == {
        attempt_errors.RouterFault.kind,
        "none",
    }
    assert {o for o, _ in FAILURES} == set(FAILED_OUTCOMES)
