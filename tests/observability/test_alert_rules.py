"""Each of the router's own alerts in alerts.yml (down, backends, fallbacks, canary, demo mode,
config) fires once its `for:` has passed, not before, and says what it should, evaluated by
`promtool test rules` with Prometheus's own rule engine.

SmfCanaryGateClosed is tested from a real canary in test_canary_alert_rules.py; the alerts
that say the router is losing what it records (ledger rows, trace spans) are in
test_record_loss_alert_rules.py, the outage alerts in test_alert_outage.py, a backend's 429
wait in test_skip_metrics.py, and this file checks that every alert has a case somewhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from alert_cases import ROUTER, Case, fired, promtool_account, quiet, series
from dashboard_queries import ALERTS
from test_alert_outage import TESTED as OUTAGE_ALERTS
from test_record_loss_alert_rules import CASES as RECORD_LOSS_CASES
from test_skip_metrics import TESTED as SKIP_ALERTS

# A router's series as a federating Prometheus passes them on without honor_labels.
FEDERATED = {"instance": "prom:9090", "job": "federate"}


def router_down(instance: str = "") -> dict[str, str]:
    """SmfRouterDown's annotations for `instance`; for no instance, a job with no target."""
    if instance:
        return {
            "summary": f"smf-router {instance} is not answering scrapes",
            "description": (
                "Its /metrics has not answered for 2 minutes: the process is down, hung or "
                "unreachable."
            ),
        }
    return {
        "summary": "Prometheus scrapes no smf-router target at all",
        "description": (
            'No target of job "smf-router" exists: no router is running or discovered (a '
            "Deployment deleted or scaled to 0, pods outside the scrape config's namespace "
            "or labels), or the scrape config names the job otherwise. The alerts select "
            'job="smf-router" (deploy/README.md).'
        ),
    }


def refused_reload(instance: str) -> dict[str, str]:
    return {
        "summary": f"smf-router {instance} refused its last config reload: it runs an older config",
        "description": (
            "The file on disk is not what the router runs, and a restart may fail on it. The "
            "router's log (and the reply to POST /v1/router/reload) says why; fix the file and "
            "reload again."
        ),
    }


CANARY_CASES = "smf_router_canary_cases_total"
TOOLS = {"backend": "local", "suite": "tool_calling"}
MATH = {"backend": "local", "suite": "math"}
CLOUD = {"backend": "cloud", "suite": "tool_calling"}
SANDBOX = {"backend": "local", "suite": "coding"}
REPLICA = {"instance": "router:4001"}
NOT_RUNNABLE = "smf_router_canary_cases_not_runnable"


def blind(backend: str, suite: str) -> tuple[dict[str, str], dict[str, str]]:
    """SmfCanaryBlind's labels and annotations for `suite` on `backend`."""
    return {"backend": backend, "suite": suite, "severity": "warning"}, {
        "summary": (
            f"The canary graded no {suite} case on {backend} in an hour: every one was an error"
        ),
        "description": (
            f"Errors are no quality verdict, so the {suite} gate of {backend} stays as it "
            "was, open or closed, while the canary cannot tell whether the backend answers "
            "well. The kind of error says why (the smf-quality dashboard's \"Canary cases by "
            'outcome", or error_kind of smf_router_canary_cases_total): transport is a '
            "refused or failed request (a 4xx such as vLLM without --enable-auto-tool-choice "
            "refusing tools requests, a revoked key, a backend down), timeout no reply in "
            "time, sandbox code cases that cannot run on this host, case a suite case that "
            "cannot be graded as written, grader or canary a bug on the router's side (its "
            "log says which)."
        ),
    }


# The annotations are written out here, not read from alerts.yml: compared with what promtool
# renders from that same file, read text would pass whatever it said.
CASES: dict[str, Case] = {
    # down from 5m on; `for: 2m`
    "SmfRouterDown": (
        [series("up", "1x4 0x20")],
        [
            quiet("SmfRouterDown", "6m"),
            fired(
                "SmfRouterDown",
                "7m",
                {**ROUTER, "severity": "critical"},
                router_down(ROUTER["instance"]),
            ),
        ],
    ),
    # the local backend down from 5m on, a cloud one down all along (not this alert's)
    "SmfLocalBackendDown": (
        [
            series("smf_router_backend_up", "1x4 0x20", backend="gpu1", tier="local"),
            series("smf_router_backend_up", "0x24", backend="openai", tier="cloud"),
        ],
        [
            quiet("SmfLocalBackendDown", "6m"),
            fired(
                "SmfLocalBackendDown",
                "7m",
                {"backend": "gpu1", "severity": "warning"},
                {
                    "summary": "Local backend gpu1 is down; its routes skip it for their "
                    "next backend",
                    "description": "The router found gpu1 down: its circuit opened on failed "
                    "requests or health checks, and no request has succeeded there since (a "
                    "passing health check ends it at once where only health checks failed, "
                    "else only after 15 minutes with no failure). "
                    "Requests it would serve go to the next backend of their route, another "
                    "local one or the cloud (at cloud prices until it "
                    "is back), or fail where the route has no other (SmfRequestsFailing). The "
                    'error kinds of its attempts say why (smf-reliability, "Attempts by '
                    'backend and outcome").',
                },
            ),
        ],
    ),
    # 30% of requests fell back from the start (the ratio exists from 1m); `for: 10m`. A
    # flood of requests refused before any plan (route none: bad keys) has no backend to
    # fall back from: counted, it would have cut the share to under 3% and hid the alert.
    "SmfFallbackRateHigh": (
        [
            series("smf_router_requests_total", "0+10x30", tier="local", route="coding"),
            series("smf_router_fallback_requests_total", "0+3x30", tier="local"),
            series("smf_router_requests_total", "0+100x30", tier="none", route="none"),
        ],
        [
            quiet("SmfFallbackRateHigh", "10m"),
            fired(
                "SmfFallbackRateHigh",
                "11m",
                {"severity": "warning"},
                {
                    "summary": "30% of requests needed a fallback",
                    "description": (
                        "See the reliability dashboard (smf-reliability) for which backend "
                        "fails and why."
                    ),
                },
            ),
        ],
    ),
    # local's tool_calling cases are all errors from the start (a vLLM that refuses tools),
    # counted by two replicas, until passes come at 60m; `for: 20m`. Its math cases pass
    # beside them, and cloud's tool_calling errs for 10 minutes only (a restart): neither
    # is blind. A backend × suite with no graded series at all (only errors ever) is.
    "SmfCanaryBlind": (
        [
            series(CANARY_CASES, "0+3x100", **TOOLS, status="error", error_kind="transport"),
            series(CANARY_CASES, "0x59 0+3x40", **TOOLS, status="passed", error_kind=""),
            series(CANARY_CASES, "0x100", **TOOLS, status="failed", error_kind=""),
            series(
                CANARY_CASES, "0+3x100", **TOOLS, status="error", error_kind="transport", **REPLICA
            ),
            series(CANARY_CASES, "0+1x100", **MATH, status="error", error_kind="timeout"),
            series(CANARY_CASES, "0+2x100", **MATH, status="passed", error_kind=""),
            series(CANARY_CASES, "0+3x10 30x90", **CLOUD, status="error", error_kind="transport"),
            series(CANARY_CASES, "0x10 0+3x90", **CLOUD, status="passed", error_kind=""),
            series(CANARY_CASES, "0x30 0+1x70", **SANDBOX, status="error", error_kind="sandbox"),
        ],
        [
            quiet("SmfCanaryBlind", "20m"),
            fired("SmfCanaryBlind", "22m", *blind("local", "tool_calling")),
            fired(
                "SmfCanaryBlind",
                "52m",
                *blind("local", "tool_calling"),
                blind("local", "coding"),
            ),
            fired("SmfCanaryBlind", "62m", *blind("local", "coding")),
        ],
    ),
    # a router loaded tool_calling with 2 flawed cases from the start, a replica too (one
    # alert); math is sound (0). The suite file was fixed and reloaded at 30m; `for: 10m`.
    "SmfCanaryCasesNotRunnable": (
        [
            series(NOT_RUNNABLE, "2x29 0x20", suite="tool_calling"),
            series(NOT_RUNNABLE, "2x29 0x20", suite="tool_calling", **REPLICA),
            series(NOT_RUNNABLE, "0x50", suite="math"),
        ],
        [
            quiet("SmfCanaryCasesNotRunnable", "9m"),
            fired(
                "SmfCanaryCasesNotRunnable",
                "11m",
                {"suite": "tool_calling", "severity": "warning"},
                {
                    "summary": (
                        "Canary suite tool_calling holds 2 cases that never run: each has a mistake"
                    ),
                    "description": (
                        "These cases are N/A in every canary round: never asked, neither pass "
                        "nor fail. A suite whose cases are all such grades nothing, and its "
                        "gate stays as it was, open or closed. Run `smf-router config check` "
                        "on the router's config: its lines that begin `not run (N/A until "
                        "fixed):` name each such case and field (those that begin `runs as "
                        "written, but check:` are cases that run, not counted here); fix the "
                        "suite file and reload."
                    ),
                },
            ),
            quiet("SmfCanaryCasesNotRunnable", "31m"),
        ],
    ),
    # demo mode from 5m on; `for: 2m`
    "SmfRouterDemo": (
        [series("smf_router_demo", "0x4 1x20")],
        [
            quiet("SmfRouterDemo", "6m"),
            fired(
                "SmfRouterDemo",
                "7m",
                {"instance": "router:4000", "severity": "critical"},
                {
                    "summary": "smf-router router:4000 runs in demo mode: its answers are fake",
                    "description": (
                        "No backends are configured, so both backends are the built-in "
                        "simulator. A router started without its config file or SMF_* "
                        "variables falls into demo mode; restore them and restart. Its "
                        "traffic is recorded in ./var/demo-ledger only."
                    ),
                },
            ),
        ],
    ),
    # one router refused a reload at 5m and took a fixed file at 12m; `for: 5m`. Another
    # refused one at 5m and was fixed at 8m, before the alert: never an alert. Two more come
    # through a federating Prometheus (no honor_labels: both carry its instance), one of
    # them refusing from 5m: `max by (instance)` hid it behind the other (found in re-review).
    "SmfRouterConfigReloadFailed": (
        [
            series("smf_router_config_last_reload_successful", "1x4 0x6 1x10"),
            series(
                "smf_router_config_last_reload_successful", "1x4 0x2 1x14", instance="router:4001"
            ),
            series("smf_router_config_last_reload_successful", "1x24", **FEDERATED, pod="a"),
            series("smf_router_config_last_reload_successful", "1x4 0x20", **FEDERATED, pod="b"),
        ],
        [
            quiet("SmfRouterConfigReloadFailed", "9m"),
            fired(
                "SmfRouterConfigReloadFailed",
                "10m",
                {**ROUTER, "severity": "warning"},
                refused_reload("router:4000"),
                ({**FEDERATED, "pod": "b", "severity": "warning"}, refused_reload("prom:9090")),
            ),
            fired(
                "SmfRouterConfigReloadFailed",
                "12m",
                {**FEDERATED, "pod": "b", "severity": "warning"},
                refused_reload("prom:9090"),
            ),
        ],
    ),
    # a reload at 10m left a setting for the restart; the operator restarted at 80m, 10
    # minutes after the alert. Another router's restart came within the hour: never an alert.
    "SmfRouterRestartNeeded": (
        [
            series("smf_router_config_restart_needed", "0x9 1x70 0x10"),
            series("smf_router_config_restart_needed", "0x9 1x50 0x30", instance="router:4001"),
        ],
        [
            quiet("SmfRouterRestartNeeded", "69m"),
            fired(
                "SmfRouterRestartNeeded",
                "71m",
                {**ROUTER, "severity": "info"},
                {
                    "summary": (
                        "smf-router router:4000 has run for an hour without settings its "
                        "config file asks for"
                    ),
                    "description": (
                        "A config reload applied, but some of its changes only take effect at "
                        "a restart (the reload's reply and GET /v1/router/status list them in "
                        "restart_needed). Restart the router when convenient."
                    ),
                },
            ),
            quiet("SmfRouterRestartNeeded", "85m"),
        ],
    ),
}


# The router's target gone from 5m on (discovery dropped its pod, or the job was renamed):
# `up == 0` had no series to compare and never fired (found in review). vLLM's target stays
# up under its own job. Stale 5 minutes after its last sample (~9m), the router's gauges
# with it; `for: 2m`.
VANISHED: Case = (
    [
        series("up", "1x4"),
        series("smf_router_demo", "0x4"),
        series("up", "1x30", job="vllm", instance="spark:8888"),
    ],
    [
        quiet("SmfRouterDown", "4m"),
        quiet("SmfRouterDown", "10m"),
        fired("SmfRouterDown", "12m", {"job": "smf-router", "severity": "critical"}, router_down()),
    ],
)


# The router's target (and so `up`) missing, while a router's series are there, or not. A
# federating Prometheus has the routers' series under its own job and no smf-router target:
# `absent(up{job="smf-router"})` fired there for good (found in review), though the
# federated cases above are meant to hold. Any router series will do (whichever the
# federation passes on), until their router stops: its series go stale once the federated
# Prometheus stops having them (last sample at 9m: absent from 14m). With no router series
# at all, absent from the start; `for: 2m`. A router scraped under another job is not
# watched while it runs; once its scrape fails (`stale`), it is.
ROUTER_GONE: dict[str, Case] = {
    "federated series only": (
        [
            series("smf_router_backend_up", "1x30", **FEDERATED, backend="local", tier="local"),
            series("up", "1x30", **FEDERATED),
        ],
        [quiet("SmfRouterDown", at) for at in ("1m", "3m", "10m", "30m")],
    ),
    "federated router stopped": (
        [series("smf_router_demo", "0x9", **FEDERATED), series("up", "1x30", **FEDERATED)],
        [
            quiet("SmfRouterDown", "16m"),
            fired(
                "SmfRouterDown", "17m", {"job": "smf-router", "severity": "critical"}, router_down()
            ),
        ],
    ),
    "nothing at all": (
        [series("up", "1x30", job="vllm", instance="spark:8888")],
        [
            quiet("SmfRouterDown", "1m"),
            fired(
                "SmfRouterDown", "3m", {"job": "smf-router", "severity": "critical"}, router_down()
            ),
        ],
    ),
    "scraped under another job": (
        [
            series("up", "1x4 0x20", job="router"),
            series("smf_router_demo", "0x4 stale", job="router"),
        ],
        [
            quiet("SmfRouterDown", "4m"),
            fired(
                "SmfRouterDown", "8m", {"job": "smf-router", "severity": "critical"}, router_down()
            ),
        ],
    ),
}


def test_every_alert_has_a_case_here_or_in_the_canary_test() -> None:
    rules = yaml.safe_load(ALERTS.read_text())["groups"][0]["rules"]
    assert not CASES.keys() & RECORD_LOSS_CASES.keys()
    assert not CASES.keys() & OUTAGE_ALERTS
    assert not CASES.keys() & SKIP_ALERTS
    named = {*CASES, *RECORD_LOSS_CASES, *OUTAGE_ALERTS, *SKIP_ALERTS, "SmfCanaryGateClosed"}
    assert {r["alert"] for r in rules} == named


@pytest.mark.parametrize("alert", sorted(CASES))
def test_alert_fires_after_its_for_and_says_what_happened(tmp_path: Path, alert: str) -> None:
    assert promtool_account(tmp_path, CASES[alert]) == ""


def test_router_down_fires_when_its_scrape_target_is_gone(tmp_path: Path) -> None:
    assert promtool_account(tmp_path, VANISHED) == ""


@pytest.mark.parametrize("case", sorted(ROUTER_GONE))
def test_router_down_fires_for_a_missing_target_only_with_no_router_series(
    tmp_path: Path, case: str
) -> None:
    assert promtool_account(tmp_path, ROUTER_GONE[case]) == ""
