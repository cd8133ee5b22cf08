"""The readers' audit: weighted agreement, and its rows still naming the shipped validation data."""

from __future__ import annotations

import pytest

from classifier import audit
from classifier.corpus import Example, load
from classifier.intent import INTENTS


def _rows(texts: list[tuple[str, str, str]]) -> list[Example]:
    return [Example(text, label, source) for text, label, source in texts]  # type: ignore[arg-type]


def test_agreement_is_weighted_macro_f1_accuracy_and_route() -> None:
    ref = ["math", "math", "writing", "instruction"]
    pred = ["math", "reasoning", "writing", "writing"]
    plain = audit.agreement(pred, ref, [1, 1, 1, 1])
    # math F1 2/3, writing F1 2/3, instruction F1 0 (reasoning is never the reference)
    assert plain.macro_f1 == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    assert plain.accuracy == pytest.approx(0.5)
    assert plain.route_accuracy == pytest.approx(0.75)  # only instruction -> writing crosses
    heavy = audit.agreement(pred, ref, [1, 1, 1, 5])
    assert heavy.accuracy == pytest.approx(2 / 8)
    assert heavy.route_accuracy == pytest.approx(3 / 8)


def test_a_sparsely_sampled_source_keeps_its_share_of_the_validation_set() -> None:
    validation = _rows(
        [
            ("a", "math", "svamp"),
            ("b", "math", "svamp"),
            ("c", "math", "svamp"),
            ("d", "prose", "hellobench"),
        ]
    )
    rows = [
        audit.AuditRow(0, audit.text_digest("a"), {"r": "math"}),
        audit.AuditRow(3, audit.text_digest("d"), {"r": "prose"}),
    ]
    assert audit.sample_weights(rows, validation) == [3.0, 1.0]


def test_an_audit_row_whose_text_changed_is_refused() -> None:
    validation = _rows([("a", "math", "svamp")])
    rows = [audit.AuditRow(0, audit.text_digest("something else"), {"r": "math"})]
    with pytest.raises(ValueError, match="row 0"):
        audit.sample_weights(rows, validation)


def test_the_shipped_audit_names_the_shipped_validation_rows() -> None:
    validation = load("validation")
    rows = audit.load()
    assert len({r.row for r in rows}) == len(rows) >= 800
    weights = audit.sample_weights(rows, validation)  # raises if a digest no longer matches
    assert sum(weights) == pytest.approx(len(validation))
    assert all(set(r.readers) == {"policy_a", "policy_b", "conventions"} for r in rows)
    labels = {label for r in rows for label in r.readers.values()}
    assert labels <= set(INTENTS)
