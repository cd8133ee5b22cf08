"""A request a reader could not read is logged by kind and place, never by text, and only its
1st, 2nd, 4th, 8th... time (`classifier.failure_log.FailureLog`): what `classify` and
`explain` log when they give such a request the default route, and the router's
conversation key when it keys one as sent. Without the power-of-two gate a flood of one bad
shape is a line a request; without the kind-and-place wording a message quoting the body
reaches the log."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import pytest

from classifier import classify, decision, explain
from classifier.failure_log import FailureLog

SECRET = "the user's secret words"


def raising(*args: Any, **kwargs: Any) -> Any:
    """A reader's bug whose message quotes the body, as a `KeyError` of a user's key does."""
    raise ValueError(SECRET)


def failures(log: FailureLog, times: int) -> None:
    """`times` failures of `log`'s reader, each a raised and caught exception."""
    for _ in range(times):
        try:
            raising()
        except ValueError as exc:
            log.failed(exc)


def test_only_the_powers_of_two_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("smf_router.test_failure_log")
    log = FailureLog(logger, "a reader failed", "it gets the default")
    with caplog.at_level(logging.WARNING, logger=logger.name):
        failures(log, 20)
    lines = [r.getMessage() for r in caplog.records if r.name == logger.name]
    assert [line.split("; ")[1] for line in lines] == [f"{n} so far)" for n in (1, 2, 4, 8, 16)]
    assert all(r.levelno == logging.WARNING for r in caplog.records if r.name == logger.name)


def test_a_failure_is_logged_by_kind_and_place_not_text(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("smf_router.test_failure_log")
    log = FailureLog(logger, "a reader failed", "it gets the default")
    with caplog.at_level(logging.WARNING, logger=logger.name):
        failures(log, 1)
    (line,) = [r.getMessage() for r in caplog.records if r.name == logger.name]
    assert line.startswith("a reader failed (ValueError at ")
    assert __file__ in line and line.endswith("; it gets the default")
    assert SECRET not in line


def test_the_classifiers_failures_are_gated_alike(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`classify` and `explain` share one log: five failures, three lines, the default
    route each time, and no word of the body."""
    monkeypatch.setattr(decision._failures, "_count", itertools.count(1))  # counted from 1
    monkeypatch.setattr(decision, "decide", raising)
    monkeypatch.setattr(decision, "view_cut", raising)
    body = {"messages": [{"role": "user", "content": SECRET}]}
    with caplog.at_level(logging.WARNING, logger=decision.log.name):
        for _ in range(3):
            assert classify(body) is decision.UNKNOWN
        for _ in range(2):
            assert explain(body)["source"] == decision.UNKNOWN.source
    lines = [r.getMessage() for r in caplog.records if r.name == decision.log.name]
    assert [line.split("; ")[1] for line in lines] == ["1 so far)", "2 so far)", "4 so far)"]
    opening = "the classifier could not read a request (ValueError at "
    assert all(line.startswith(opening) and SECRET not in line for line in lines)
    assert all(line.endswith("; it takes the default route") for line in lines)
