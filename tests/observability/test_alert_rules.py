"""Each alert in alerts.yml fires once its `for:` has passed, not before, and says what it
should, evaluated by `promtool test rules` with Prometheus's own rule engine.

SmfCanaryGateClosed is tested from a real canary in test_canary_alert_rules.py. The ledger
alert printed increase()'s extrapolated value ("dropped 3.25 records"); it now rounds and
says "about" (found in review).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from dashboard_queries import ALERTS
from prometheus_server import promtool_test

ROUTER = {"instance": "router:4000", "job": "smf-router"}


def series(name: str, values: str, **labels: str) -> dict[str, str]:
    inner = ",".join(f'{k}="{v}"' for k, v in sorted({**ROUTER, **labels}.items()))
    return {"series": f"{name}{{{inner}}}", "values": values}


def fired(
    alert: str,
    at: str,
    labels: dict[str, str],
    annotations: dict[str, str],
    *more: tuple[dict[str, str], dict[str, str]],
) -> Any:
    """`alert` firing at `at` with these labels and annotations, and `more` such pairs."""
    return {
        "eval_time": at,
        "alertname": alert,
        "exp_alerts": [
            {"exp_labels": each, "exp_annotations": said}
            for each, said in ((labels, annotations), *more)
        ],
    }


def quiet(alert: str, at: str) -> dict[str, Any]:
    return {"eval_time": at, "alertname": alert, "exp_alerts": []}


# A router's series as a federating Prometheus passes them on without honor_labels.
FEDERATED = {"instance": "prom:9090", "job": "federate"}


def refused_reload(instance: str) -> dict[str, str]:
    return {
        "summary": f"smf-router {instance} refused its last config reload: it runs an older config",
        "description": (
            "The file on disk is not what the router runs, and a restart may fail on it. The "
            "router's log (and the reply to POST /v1/router/reload) says why; fix the file and "
            "reload again."
        ),
    }


CASES = "smf_router_canary_cases_total"
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


# Each case: (input series, checks); one sample a minute, rules evaluated every 30 s. The
# annotations are written out here, not read from alerts.yml: compared with what promtool
# renders from that same file, read text would pass whatever it said.
CASES: dict[str, tuple[list[dict[str, str]], list[Any]]] = {
    # down from 5m on; `for: 2m`
    "SmfRouterDown": (
        [series("up", "1x4 0x20")],
        [
            quiet("SmfRouterDown", "6m"),
            fired(
                "SmfRouterDown",
                "7m",
                {**ROUTER, "severity": "critical"},
                {"summary": "smf-router router:4000 is not answering scrapes"},
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
                    "summary": "Local backend gpu1 is down; its traffic falls back to cloud",
                    "description": "The router's health check of gpu1 fails. Requests still "
                    "succeed through fallbacks, but they cost cloud dollars until the local "
                    "server is back.",
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
            series(CASES, "0+3x100", **TOOLS, status="error", error_kind="transport"),
            series(CASES, "0x59 0+3x40", **TOOLS, status="passed", error_kind=""),
            series(CASES, "0x100", **TOOLS, status="failed", error_kind=""),
            series(CASES, "0+3x100", **TOOLS, status="error", error_kind="transport", **REPLICA),
            series(CASES, "0+1x100", **MATH, status="error", error_kind="timeout"),
            series(CASES, "0+2x100", **MATH, status="passed", error_kind=""),
            series(CASES, "0+3x10 30x90", **CLOUD, status="error", error_kind="transport"),
            series(CASES, "0x10 0+3x90", **CLOUD, status="passed", error_kind=""),
            series(CASES, "0x30 0+1x70", **SANDBOX, status="error", error_kind="sandbox"),
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
                        "on the router's config to see which case and field; fix the suite "
                        "file and reload."
                    ),
                },
            ),
            quiet("SmfCanaryCasesNotRunnable", "31m"),
        ],
    ),
    # 3 records dropped at 6m; no `for:`, and quiet again once the drop leaves the window.
    # Evaluated 30 s after a scrape, as rules mostly are, increase() extrapolates to 3.25.
    "SmfLedgerDroppingRecords": (
        [series("smf_router_ledger_dropped_records_total", "0x5 3x20")],
        [
            quiet("SmfLedgerDroppingRecords", "5m30s"),
            *[
                fired(
                    "SmfLedgerDroppingRecords",
                    at,
                    {**ROUTER, "severity": "critical"},
                    {
                        "summary": "The ledger dropped about 3 records in 10 minutes",
                        "description": (
                            "Records are lost (disk full or not writable, or the writer cannot "
                            "keep up). Offload reports will under-count until this is fixed."
                        ),
                    },
                )
                for at in ("6m30s", "12m30s")  # increase() reads 3.25, then 3.17
            ],
            quiet("SmfLedgerDroppingRecords", "17m30s"),
        ],
    ),
    # one router's writes fail from 5m to 10m, its rows held in memory; `for: 3m`. Another's
    # failed once (held rows for one scrape): never for 3 minutes, so never an alert.
    "SmfLedgerWritesFailing": (
        [
            series("smf_router_ledger_pending_records", "0x4 1200x4 0x10"),
            series("smf_router_ledger_pending_records", "0x5 40 0x10", instance="router:4001"),
        ],
        [
            quiet("SmfLedgerWritesFailing", "7m30s"),
            fired(
                "SmfLedgerWritesFailing",
                "8m",
                {"instance": "router:4000", "severity": "critical"},
                {
                    "summary": "The ledger of router:4000 cannot write: 1200 rows wait in memory",
                    "description": (
                        "Its writes fail (disk full or not writable; the router's log says "
                        "why). The rows are retried at every flush and written once the disk "
                        "takes them; until then a SIGKILL or crash of the router loses them, "
                        "and past 1,000,000 rows new ones are dropped."
                    ),
                },
            ),
            quiet("SmfLedgerWritesFailing", "10m30s"),
        ],
    ),
    # one router's flush hangs in a write from 5m (the gauge grows 60 s a scrape) until 12m;
    # `> 60` from 7m, `for: 2m`. Another's flush ran 61 s once (a slow merge-day write): never
    # for 2 minutes, so never an alert. Written without the rule, no alert fired (review).
    "SmfLedgerFlushStuck": (
        [
            series("smf_router_ledger_flush_running_seconds", "0x4 0+60x7 0x10"),
            series(
                "smf_router_ledger_flush_running_seconds", "0x5 61 0x10", instance="router:4001"
            ),
        ],
        [
            quiet("SmfLedgerFlushStuck", "8m30s"),
            fired(
                "SmfLedgerFlushStuck",
                "9m30s",
                {"instance": "router:4000", "severity": "critical"},
                {
                    "summary": "The ledger flush of router:4000 has been stuck for 240 s",
                    "description": (
                        "A ledger write does not return (a hung NFS mount or a stalled disk; "
                        "mount and dmesg say which). Nothing is written meanwhile: records "
                        "queue in memory, and past 256 MiB or 1,000,000 rows new ones are "
                        "dropped (SmfLedgerDroppingRecords); a SIGKILL or crash loses the "
                        "queue. Fix or remount the volume; a graceful stop waits on the same "
                        "write."
                    ),
                },
            ),
            quiet("SmfLedgerFlushStuck", "13m30s"),
        ],
    ),
    # 100 spans a minute lost from 5m on, of one reason; `for: 10m`. The other reason lost one
    # batch at 6m (a collector restart): never for 10 minutes, so never an alert.
    "SmfTracingDroppingSpans": (
        [
            series("smf_router_tracing_dropped_spans_total", "0x4 0+100x30", reason="queue_full"),
            series("smf_router_tracing_dropped_spans_total", "0x5 512x30", reason="export_failed"),
        ],
        [
            quiet("SmfTracingDroppingSpans", "15m"),
            fired(
                "SmfTracingDroppingSpans",
                "17m",
                {"instance": "router:4000", "reason": "queue_full", "severity": "warning"},
                {
                    "summary": "Tracing lost about 1000 spans in 10 minutes (queue_full)",
                    "description": (
                        "export_failed: the OTLP collector (OTEL_EXPORTER_OTLP_ENDPOINT) is "
                        "down, refusing or too slow; the router logs its host every 10 "
                        "minutes. queue_full: spans arrive faster than it takes them "
                        "(OTEL_BSP_MAX_QUEUE_SIZE bounds the queue). Requests are served as "
                        "usual; their traces are missing."
                    ),
                },
            ),
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


def test_every_alert_has_a_case_here_or_in_the_canary_test() -> None:
    rules = yaml.safe_load(ALERTS.read_text())["groups"][0]["rules"]
    assert {r["alert"] for r in rules} == {*CASES, "SmfCanaryGateClosed"}


@pytest.mark.parametrize("alert", sorted(CASES))
def test_alert_fires_after_its_for_and_says_what_happened(tmp_path: Path, alert: str) -> None:
    input_series, checks = CASES[alert]
    test = {
        "rule_files": [str(ALERTS)],
        "evaluation_interval": "30s",  # scrapes every minute: rules also run between
        "tests": [{"interval": "1m", "input_series": input_series, "alert_rule_test": checks}],
    }
    assert promtool_test(tmp_path, test) == ""
