"""The report's window and query, refused where they would answer for something not asked:
a `since` from now on, whatever `until` says (the command's usage error, the endpoint's 400
naming `since`), and an endpoint parameter given twice. Both answered before, an all-zero
report with status 0 and 200, and the last of the two (found in review)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from router.config import hash_key
from tests.harness import config_for, router, simulator
from tests.ledger.known_ledger import write_known_ledger
from tests.processes import smf_router

ADMIN = "sk-admin-report-query"
AHEAD = ("2999-01-01", "2999-02-01")  # a window wholly after now


def test_a_window_ahead_of_now_is_the_commands_usage_error(tmp_path: Path) -> None:
    ledger = write_known_ledger(tmp_path / "ledger")
    done = smf_router("report", "--ledger", str(ledger), "--since", AHEAD[0], "--until", AHEAD[1])
    assert done.returncode == 2 and done.stdout == "", done.stdout
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())
    assert "--since (2999-01-01T00:00:00+00:00) must be before now (" in said, said
    assert "whatever --until says: the window would be empty" in said


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("report_query")
    with simulator(profile="vllm", model="local-model") as local:
        keys = [{"name": "ops", "sha256": hash_key(ADMIN), "admin": True}]
        with router(config_for({"local": local}, tmp, auth={"keys": keys})) as proxy:
            yield proxy.root


def _get(root: str, query: str) -> httpx.Response:
    url = f"{root}/v1/router/report?{query}"
    return httpx.get(url, headers={"authorization": f"Bearer {ADMIN}"}, timeout=60)


def test_the_endpoint_refuses_a_window_ahead_of_now_naming_since(root: str) -> None:
    ahead = _get(root, f"since={AHEAD[0]}&until={AHEAD[1]}")
    assert ahead.status_code == 400, ahead.text
    error = ahead.json()["error"]
    assert error["param"] == "since" and "must be before now" in error["message"]
    assert _get(root, "since=2026-01-01&until=2999-01-01").status_code == 200  # reaches now


@pytest.mark.parametrize(
    ("query", "param"),
    [("since=1d&since=2026-12-01", "since"), ("by=route&since=7d&by=backend", "by")],
)
def test_the_endpoint_refuses_a_parameter_given_twice(root: str, query: str, param: str) -> None:
    twice = _get(root, query)
    assert twice.status_code == 400, twice.text
    error = twice.json()["error"]
    assert error["param"] == param and f"'{param}' is given 2 times" in error["message"]


def test_an_until_alone_far_ahead_is_refused_naming_until(root: str, tmp_path: Path) -> None:
    """With no since, the window is the 30 days before until: an until more than 30 days
    ahead leaves it wholly after now. The error named `since`, which the client never sent
    (found in review); a nearer until is a window that reaches now."""
    far = _get(root, f"until={AHEAD[0]}")
    assert far.status_code == 400, far.text
    error = far.json()["error"]
    assert error["param"] == "until" and error["message"].startswith("with no since, the window")
    ledger = write_known_ledger(tmp_path / "ledger")
    done = smf_router("report", "--ledger", str(ledger), "--until", AHEAD[0])
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())
    assert done.returncode == 2 and "with no --since, the window is the 30 days before" in said
