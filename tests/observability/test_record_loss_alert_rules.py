"""The alerts that say the router is losing what it records, ledger rows and trace spans,
fire once their `for:` has passed, not before, and say what they should, evaluated by
`promtool test rules` with Prometheus's own rule engine.

The ledger alert printed increase()'s extrapolated value ("dropped 3.25 records"); it now
rounds and says "about" (found in review).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from alert_cases import ROUTER, Case, fired, promtool_account, quiet, series

# The annotations are written out here, not read from alerts.yml: compared with what promtool
# renders from that same file, read text would pass whatever it said.
CASES: dict[str, Case] = {
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
}


@pytest.mark.parametrize("alert", sorted(CASES))
def test_alert_fires_after_its_for_and_says_what_happened(tmp_path: Path, alert: str) -> None:
    assert promtool_account(tmp_path, CASES[alert]) == ""
