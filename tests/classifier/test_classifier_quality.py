"""A quality floor on the held-out sources: fails when the shipped model regresses."""

from __future__ import annotations

from classifier import classify
from classifier.corpus import load
from classifier.evaluation import as_routed, evaluate
from classifier.intent import Intent

# Floors a little under the shipped model's numbers in docs/classifier.md.
MACRO_F1_FLOOR = 0.80
ROUTE_ACCURACY_FLOOR = 0.895


def test_shipped_model_meets_the_floor_on_held_out_sources() -> None:
    report = evaluate(load("validation"), classify)
    assert report.macro_f1 >= MACRO_F1_FLOOR
    assert report.route_accuracy >= ROUTE_ACCURACY_FLOOR
    assert report.per_source["svamp"]["accuracy"] > 0.95


def test_most_robustness_probes_pass() -> None:
    report = evaluate(load("validation")[:1], classify)
    passed = sum(p["ok"] for p in report.probes)
    assert passed >= len(report.probes) - 3, [p for p in report.probes if not p["ok"]]


def test_route_accuracy_as_routed_sends_low_confidence_to_the_default_local_route() -> None:
    gold = ["coding", "writing", "writing", "math"]
    pred = [
        Intent("coding", 0.9, "model"),  # local, right
        Intent("writing", 0.2, "model"),  # low: default local, wrong for writing
        Intent("writing", 0.8, "model"),  # cloud, right
        Intent("prose", 0.4, "model"),  # cloud at 0.3 (right), default local at 0.5 (wrong)
    ]
    assert as_routed(gold, pred, 0.3) == (0.75, 0.25)
    assert as_routed(gold, pred, 0.5) == (0.5, 0.5)
