"""The router's own calls honour a long 429's wait as live routing does: while a backend
waits out the `Retry-After` it asked for, no canary round and no shadow replay asks it.
Live traffic passed it by, but the canary kept asking it every round and the shadow kept
replaying onto it, calling a provider that asked to be left alone (found in review). Real
sockets: the router and two simulators on 127.0.0.1, the official openai SDK; the
simulators count what reached them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.suite import SHIPPED
from router.ledger import Ledger
from tests.harness import INTENTS, RunningRouter, config_for, router, scrape, sdk
from tests.resilience.conftest import CODING, FAST, local_and_cloud, status, until

WAIT_S = 600  # the cloud's Retry-After: far past the test, whatever the machine's pace


def _ask(proxy: RunningRouter) -> Any:
    """One coding request (the route asks the cloud first) through the SDK: the response."""
    return sdk(proxy).chat.completions.with_raw_response.create(
        model="coding", messages=[{"role": "user", "content": CODING[0]["content"]}]
    )


def _canary(proxy: RunningRouter) -> dict[str, Any]:
    section: dict[str, Any] = status(proxy.root)["extra"]["canary"]
    return section


def _runs_past(proxy: RunningRouter, runs: int) -> None:
    until(lambda: _canary(proxy)["runs"] >= runs, limit_s=60, what=f"canary run {runs}")


def _shadow_counts(proxy: RunningRouter) -> dict[str, int]:
    counts: dict[str, int] = status(proxy.root)["extra"]["shadow"]["counts"]
    return counts


def _ended(proxy: RunningRouter) -> int:
    """The shadow's picks that ended: compared, or dropped for a reason."""
    return sum(n for key, n in _shadow_counts(proxy).items() if key != "sampled")


def test_no_canary_round_asks_a_backend_waiting_out_a_429(tmp_path: Path) -> None:
    """Rounds every half second. Once a live request met the cloud's 429 (Retry-After 600),
    the cloud's rounds are skipped as `rate_limited`, as they are for an open circuit: no
    case asked (the old canary asked one each round), none graded, the round's row saying
    why; local's rounds go on."""
    canary = {
        "enabled": True,
        "interval_s": 0.5,
        "suites": str(SHIPPED / "math"),
        "sample_per_suite": 1,
        "concurrency": 1,
    }
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    with local_and_cloud() as pair:
        cloud = pair["cloud"]
        config = config_for(pair, tmp_path, routes=routes, resilience=FAST, canary=canary)
        with router(config) as proxy:
            _runs_past(proxy, 1)
            assert cloud.completions() >= 1  # the first round asked it: nothing waited then
            cloud.control("faults", {"fault": f"rate_limit:{WAIT_S}"})
            assert _ask(proxy).headers["x-smf-backend"] == "local"
            # a run under way may have asked the cloud before the wait began: the next one
            # started after it, and the one after that, ask it nothing
            _runs_past(proxy, _canary(proxy)["runs"] + 1)
            asked = cloud.completions()
            _runs_past(proxy, _canary(proxy)["runs"] + 2)
            assert cloud.completions() == asked
            last = _canary(proxy)["last_run"]
            assert (last["cloud"]["skipped_reason"], last["cloud"]["cases"]) == ("rate_limited", 0)
            assert (last["local"]["skipped_reason"], last["local"]["cases"]) == (None, 1)
    with Ledger(tmp_path / "ledger") as ledger:
        skipped = ledger.sql(
            "SELECT count(*), max(cases) FROM canary_runs "
            "WHERE backend = 'cloud' AND skipped_reason = 'rate_limited'"
        )
    assert skipped[0][0] >= 2 and skipped[0][1] == 0


def test_no_shadow_replays_on_a_backend_waiting_out_a_429(tmp_path: Path) -> None:
    """A coding request meets the cloud's 429 (Retry-After 600) and local serves it; its
    shadow would go to the other tier, the cloud (`allow_cloud_targets`). Dropped as
    `rate_limited`, counted in `shadow_dropped_total` (a series there from the start); the
    old shadow replayed it on the cloud, which saw a second request."""
    shadow = {"route_rates": {"coding": 1.0}, "allow_cloud_targets": True}
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    with local_and_cloud() as pair:
        cloud = pair["cloud"]
        cloud.control("faults", {"fault": f"rate_limit:{WAIT_S}"})
        config = config_for(pair, tmp_path, routes=routes, resilience=FAST, shadow=shadow)
        with router(config) as proxy:
            dropped = "smf_router_shadow_dropped_total"
            assert scrape(proxy.root).get(dropped, reason="rate_limited") == 0
            assert _ask(proxy).headers["x-smf-backend"] == "local"
            until(lambda: _ended(proxy) >= 1, what="the shadow's replay compared or dropped")
            assert cloud.completions() == 1  # the live request's 429 alone
            assert _shadow_counts(proxy) == {"sampled": 1, "dropped_rate_limited": 1}
            assert scrape(proxy.root).get(dropped, reason="rate_limited") == 1
