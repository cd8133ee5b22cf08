"""Break-even with local requests whose cloud price is unknown (counterfactual NULL): what
they saved is unknown, yet their hardware share counted as recovered without a word, and a
window of only such requests got a payback in months (found in review). The report counts
them (`unpriced_local_requests`), says so in the table and HTML, and gives no payback when
every local request is one."""

from __future__ import annotations

from pathlib import Path

from router import report
from router.ledger import LedgerWriter
from router.pricing import Pricer
from router.report_html import to_html
from router.report_render import to_table
from tests.ledger.unpriced_config import config, request_record


def _ledger(path: Path, *rows: tuple[str, str, str, str]) -> Path:
    pricer = Pricer(config())
    writer = LedgerWriter(path, process_tag="break-even")
    for rid, route, backend, tier in rows:
        record = request_record(rid, route, backend, tier)
        record.cost_usd, record.counterfactual_usd = pricer.price(record)
        writer.submit(record)
    writer.close()
    return path


def test_some_unpriced_local_requests_are_named_in_the_break_even(tmp_path: Path) -> None:
    ledger = _ledger(
        tmp_path / "ledger",
        ("r", "reasoning", "local", "local"),  # counterfactual: the unpriced frontier
        ("c", "coding", "local", "local"),  # counterfactual: priced gpt-4o
        ("m", "math", "frontier", "cloud"),  # unpriced, but not local
    )
    data = report.build(ledger, config=config())
    be = data["break_even"]
    assert (be["local_requests"], be["unpriced_local_requests"]) == (2, 1)
    assert be["payback_months"] is not None  # coding's saving is known
    said = "1 of 2 local request(s) have no known cloud price"
    assert said in to_table(data)
    assert "does not pay back" not in to_table(data) and said in to_html(data)


def test_no_payback_when_every_local_request_is_unpriced(tmp_path: Path) -> None:
    ledger = _ledger(
        tmp_path / "ledger",
        ("r1", "reasoning", "local", "local"),
        ("r2", "reasoning", "local", "local"),
    )
    data = report.build(ledger, config=config())
    be = data["break_even"]
    assert (be["local_requests"], be["unpriced_local_requests"]) == (2, 2)
    assert be["recovered_usd"] > 0  # the hardware share alone, which read as a payback
    assert be["payback_months"] is None
    table = to_table(data)
    assert "→ payback unknown at this rate" in table
    assert "(their hardware share is not): the payback is unknown" in table


def test_a_fully_priced_window_says_nothing_more(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path / "ledger", ("c", "coding", "local", "local"))
    be = report.build(ledger, config=config())["break_even"]
    assert (be["local_requests"], be["unpriced_local_requests"]) == (1, 0)
    assert be["payback_months"] is not None
    assert "no known cloud price" not in to_table(report.build(ledger, config=config()))
