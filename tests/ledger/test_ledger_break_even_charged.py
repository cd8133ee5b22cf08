"""The break-even adds back the hardware amortisation local requests were charged when
written, not what the report's `--config` would charge: through the real `smf-router
report`, on ledgers priced as a router prices them (`Pricer`) under another config."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from router.config import parse
from router.ledger import LedgerWriter
from router.pricing import MONTH_S, Pricer
from router.record import Attempt, Record, Usage
from tests.processes import smf_router

DAY_S = 86400
SERVED_S = 3000.0  # ten requests: 30,000 s, as 1,000 of 30 s
DAY = datetime(2026, 11, 10, tzinfo=UTC)
WINDOW = ["--since", "2026-11-10", "--until", "2026-11-11"]  # one day


def config(local_cost: dict[str, float] | None) -> dict[str, Any]:
    local: dict[str, Any] = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1"}
    if local_cost is not None:
        local["local_cost"] = local_cost
    cloud = {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1"}
    price = {"input_per_mtok": 2, "output_per_mtok": 8}
    return {
        "backends": [{**local, "model": "laguna"}, {**cloud, "model": "gpt-4o", "price": price}],
    }


def ledger(path: Path, written_under: dict[str, Any]) -> Path:
    """Ten local requests of `SERVED_S`, each $0.30 on the cloud, priced by `written_under`."""
    pricer = Pricer(parse(written_under))
    writer = LedgerWriter(path, process_tag="charged")
    for i in range(10):
        record = Record(
            f"r{i}",
            DAY.timestamp() + 3600 * i,
            route="coding",
            intent="coding",
            backend="local",
            tier="local",
            attempts=[Attempt("local", "local", duration_s=SERVED_S)],
            usage=Usage(100_000, 12_500),  # $0.20 + $0.10 on gpt-4o's price
            duration_s=SERVED_S,
        )
        record.cost_usd, record.counterfactual_usd = pricer.price(record)
        writer.submit(record)
    writer.close()
    return path


def report(tmp_path: Path, written_under: dict[str, Any], box: dict[str, float]) -> dict[str, Any]:
    (tmp_path / "router.yaml").write_text(yaml.safe_dump(config(box)))
    path = ledger(tmp_path / "ledger", written_under)
    args = ["--ledger", str(path), "--config", str(tmp_path / "router.yaml"), *WINDOW]
    done = smf_router("report", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


BOX = {"hardware_usd": 4000.0, "amortization_months": 36.0}


@pytest.mark.parametrize(
    "written_under",
    [None, {"hardware_usd": 2000.0, "amortization_months": 36.0}, BOX],
    ids=["no-local-cost", "price-raised-since", "same-config"],
)
def test_the_add_back_is_what_the_records_were_charged(
    tmp_path: Path, written_under: dict[str, float] | None
) -> None:
    """A router run without `local_cost` (on `SMF_*` variables) stores every local cost as
    $0: its offload, $3.00, is the whole saving. The report added back the amortisation
    its own `--config` charges for 30,000 s ($1.27), never charged: "recovered $4.27, pays
    back in 30.79 months" for $3.00 a day, 43.81 months (found in review). So after a price
    rise: half of today's share was charged, and added back twice over."""
    data = report(tmp_path, config(written_under), BOX)
    charged = data["totals"]["local_usd"]
    assert data["totals"]["offloaded_usd"] == pytest.approx(3.0 - charged, abs=1e-9)
    be = data["break_even"]
    assert be["window_days"] == 1.0
    assert be["recovered_usd"] == pytest.approx(3.0, abs=1e-9)  # no energy: all but the box
    assert be["savings_per_day_usd"] == pytest.approx(3.0, abs=1e-9)
    assert be["payback_months"] == pytest.approx(4000 / (3.0 * MONTH_S / DAY_S), abs=0.01)
    assert be["payback_months"] == 43.81
    assert [d["recovered_usd"] for d in be["daily"]] == [pytest.approx(3.0, abs=1e-9)]


def test_energy_and_fixed_cost_are_not_added_back(tmp_path: Path) -> None:
    """The stored local cost holds power and fixed cost too, which are spent, not hardware
    paid off: only the amortisation share of it is added back."""
    box = {**BOX, "power_watts": 1200.0, "electricity_usd_per_kwh": 0.3, "monthly_fixed_usd": 50}
    data = report(tmp_path, config(box), box)
    amortised = 10 * SERVED_S * 4000 / 36 / MONTH_S
    running = 10 * SERVED_S * (1.2 * 0.3 / 3600 + 50 / MONTH_S)
    assert data["totals"]["local_usd"] == pytest.approx(amortised + running, abs=1e-9)
    be = data["break_even"]
    assert be["recovered_usd"] == pytest.approx(3.0 - running, abs=1e-9)


def test_a_price_lowered_since_adds_back_only_today_s_share(tmp_path: Path) -> None:
    """Charged more when written than the config says now: the add-back is the config's
    share, so the savings lean low (the payback later), never high."""
    data = report(tmp_path, config({**BOX, "hardware_usd": 8000.0}), BOX)
    charged = data["totals"]["local_usd"]
    assert charged == pytest.approx(10 * SERVED_S * 8000 / 36 / MONTH_S, abs=1e-9)
    be = data["break_even"]
    assert be["recovered_usd"] == pytest.approx(3.0 - charged / 2, abs=1e-9)
