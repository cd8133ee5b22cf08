"""Numbers in the config, through `smf-router config check`: no boolean where a number goes,
and no duration so long that what waits on it breaks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from router.config import load
from tests.router.test_config import GOOD, write
from tests.router.test_config_file import config_check


@pytest.mark.parametrize(
    ("text", "field", "named"),
    [
        (
            GOOD.replace("tier: local", "tier: local\n    context_window: on"),
            "backends.0.context_window (line 5)",
            "",
        ),
        (
            GOOD.replace("tier: local", "tier: local\n    max_concurrency: true"),
            "backends.0.max_concurrency (line 5)",
            "",
        ),
        (GOOD + "classifier: {min_confidence: yes}\n", "classifier.min_confidence (line 16)", ""),
        (GOOD + "shadow: {rates: {math: on}}\n", "shadow.rates (line 16)", "the value of 'math'"),
        (
            GOOD.replace("tier: local", "tier: local\n    timeouts: {total_s: off}"),
            "backends.0.timeouts.total_s (line 5)",
            "",
        ),
    ],
    ids=["context_window", "max_concurrency", "min_confidence", "shadow_rate", "total_s"],
)
def test_a_yaml_boolean_where_a_number_goes_is_refused_naming_the_field(
    tmp_path: Path, text: str, field: str, named: str
) -> None:
    """YAML reads on/yes/true as true, and every int and float field but the two retentions
    took it as 1: `context_window: on` was a 1-token window, so every request skipped the
    local backend for the paid cloud without a word (found in review)."""
    done = config_check(write(tmp_path, text))
    assert done.returncode == 2, done.stdout
    assert re.search(rf"{re.escape(field)}: .*{named}.*boolean, not a number", done.stderr)


def test_booleans_where_booleans_go_and_numbers_from_variables_still_load(
    tmp_path: Path,
) -> None:
    text = GOOD + "ledger: {store_text: yes, flush_interval_s: '${FLUSH}'}\n"
    text += "server: {proxy_headers: on}\n"
    config = load(write(tmp_path, text), env={"FLUSH": "2"})
    assert config.ledger.store_text and config.server.proxy_headers
    assert config.ledger.flush_interval_s == 2.0


@pytest.mark.parametrize(
    ("extra", "field", "most"),
    [
        ("ledger: {flush_interval_s: 1e10}\n", "ledger.flush_interval_s (line 16)", "3600"),
        ("canary: {interval_s: 1e300}\n", "canary.interval_s (line 16)", "2592000"),
    ],
)
def test_a_wait_too_long_for_what_waits_on_it_is_refused(
    tmp_path: Path, extra: str, field: str, most: str
) -> None:
    """`flush_interval_s: 1e10` passed, and the ledger writer thread died of an
    OverflowError in `Event.wait` while the server looked ready; with `canary.interval_s:
    1e300`, `/v1/router/status` answered 500 writing the next run's date (found in review)."""
    done = config_check(write(tmp_path, GOOD + extra))
    assert done.returncode == 2, done.stdout
    assert f"{field}: Input should be less than or equal to {most}" in done.stderr
    kept = load(
        write(tmp_path, GOOD + extra.replace("1e10", "3600").replace("1e300", "86400")), env={}
    )
    assert (kept.ledger.flush_interval_s, kept.canary.interval_s) in {(3600, 900), (1, 86400)}
