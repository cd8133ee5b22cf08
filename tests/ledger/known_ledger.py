"""A small ledger with hand-checked numbers, shared by the report tests."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import yaml

from router.config import Config, parse
from router.ledger import LedgerWriter
from router.record import Attempt, Record, Usage
from router.report_break_even import DAY_S

DAY1 = datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp()
DAY2 = datetime(2026, 3, 2, 10, tzinfo=UTC).timestamp()


def known_config() -> Config:
    return parse(
        {
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "laguna",
                    "local_cost": {"hardware_usd": 3000, "amortization_months": 36},
                },
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "gpt-4o",
                    "price": {"input_per_mtok": 2.5, "output_per_mtok": 10},
                },
            ]
        }
    )


def known_records() -> list[Record]:
    local_ok = Attempt("local", "local", duration_s=1.0)
    return [
        Record(
            "a",
            DAY1,
            route="coding",
            intent="coding",
            caller="alice",
            backend="local",
            tier="local",
            attempts=[local_ok],
            usage=Usage(1000, 500),
            ttft_s=0.1,
            duration_s=1.0,
            cost_usd=0.01,
            counterfactual_usd=0.5,
        ),
        Record(
            "b",
            DAY1 + 60,
            route="math",
            intent="math",
            caller="bob",
            backend="cloud",
            tier="cloud",
            attempts=[Attempt("cloud", "cloud", duration_s=3.0)],
            usage=Usage(2000, 1000),
            ttft_s=0.5,
            duration_s=3.0,
            cost_usd=0.2,
            counterfactual_usd=0.2,
        ),
        Record(
            "c",
            DAY2,
            route="coding",
            intent="coding",
            caller="alice",
            backend=None,
            outcome="upstream_error",
            status=502,
            attempts=[
                Attempt("local", "local", "error", "unreachable"),
                Attempt("cloud", "cloud", "error", "timeout"),
            ],
        ),
        Record(
            "d",
            DAY2 + 60,
            route="coding",
            intent="coding",
            caller="bob",
            backend="local",
            tier="local",
            attempts=[Attempt("cloud", "cloud", "error", "rate_limited"), local_ok],
            usage=Usage(3000, 1000),
            ttft_s=0.3,
            duration_s=2.0,
            cost_usd=0.02,
            counterfactual_usd=0.3,
            fallback_reason="rate_limited",
        ),
    ]


def write_known_ledger(directory: Path, records: Iterable[Record] | None = None) -> Path:
    """`records` (the known ones by default) written to `directory` through the writer."""
    writer = LedgerWriter(directory, process_tag="known")
    for record in known_records() if records is None else records:
        writer.submit(record)
    writer.close()
    return directory


def local_days_ledger(
    tmp_path: Path,
    days: tuple[int, ...],
    cost_usd: float,
    counterfactual_usd: float,
    hardware: float | None,
) -> list[str]:
    """A ledger under `tmp_path` of one local request a day of `days` (counted from March
    1), each costing `cost_usd` and displacing `counterfactual_usd`; the report's arguments
    for it, with `hardware` a `--config` whose local box costs that much."""
    writer = LedgerWriter(tmp_path / "ledger", process_tag="days")
    for i in days:
        writer.submit(
            Record(
                f"r{i}",
                DAY1 + i * DAY_S,
                route="coding",
                backend="local",
                tier="local",
                attempts=[Attempt("local", "local", duration_s=0.0)],
                cost_usd=cost_usd,
                counterfactual_usd=counterfactual_usd,
            )
        )
    writer.close()
    args = ["--ledger", str(tmp_path / "ledger")]
    if hardware is not None:
        local = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1"}
        box = {"hardware_usd": hardware, "amortization_months": 36}
        cloud = {**local, "name": "cloud", "tier": "cloud", "model": "gpt-4o"}
        backends = [{**local, "model": "m", "local_cost": box}, cloud]
        (tmp_path / "router.yaml").write_text(yaml.safe_dump({"backends": backends}))
        args += ["--config", str(tmp_path / "router.yaml")]
    return args
