"""The temperature that calibrates the confidence: fit on left-out sources, recorded in the
artifact, changing no label, and making the held-out confidence closer to the truth."""

from __future__ import annotations

import numpy as np

from classifier import calibration, classify
from classifier.corpus import load
from classifier.decision import decide, model
from classifier.evaluation import body, calibration_error, evaluate, reliability


def test_the_temperature_of_scores_drawn_at_a_known_one_is_found() -> None:
    rng = np.random.default_rng(7)
    scores = rng.normal(0.0, 3.0, size=(4000, 7))
    truth = 0.6
    p = calibration.tempered_probabilities(scores, truth)
    gold = np.array([rng.choice(7, p=row) for row in p], dtype=np.int64)
    assert abs(calibration.fit_temperature(scores, gold) - truth) < 0.05


def test_a_tempered_model_keeps_every_label_and_changes_the_confidence() -> None:
    shipped = model()
    sharper = calibration.tempered(shipped, 0.5)
    texts = [r.text for r in load("validation")[::40]]
    before = [decide(shipped, body(t)) for t in texts]
    after = [decide(sharper, body(t)) for t in texts]
    assert [i.label for i in after] == [i.label for i in before]
    moved = [a.confidence > b.confidence for a, b in zip(after, before, strict=True)]
    assert sum(moved) > len(texts) // 2  # sharper: the top class gains where it was not sure


def test_calibration_error_is_the_weighted_gap_between_confidence_and_accuracy() -> None:
    assert calibration_error([0.9] * 10, [True] * 9 + [False]) < 1e-9
    # half the rows at 0.95 right half the time, half at 0.25 always wrong
    error = calibration_error([0.95] * 4 + [0.25] * 4, [True, True, False, False] + [False] * 4)
    assert abs(error - (0.5 * 0.45 + 0.5 * 0.25)) < 1e-9
    assert reliability([0.95, 0.85, 0.25], [True, False, False]) == [
        (0.2, 1, 0.25, 0.0),
        (0.8, 1, 0.85, 0.0),
        (0.9, 1, 0.95, 1.0),
    ]


def test_the_shipped_model_is_tempered_and_better_calibrated_on_held_out_sources() -> None:
    """The metadata says what the temperature did; the artifact must be the model it
    describes (evaluated again here), and calibration must have helped on sources it never
    saw, which it was not fit to."""
    fitted = model().metadata["calibration"]
    assert fitted["fit_on"] == "leave-one-source-out scores of the training rows"
    assert 0.1 < fitted["temperature"] < 10 and fitted["temperature"] != 1.0
    assert fitted["log_loss"]["after"] <= fitted["log_loss"]["before"]
    report = evaluate(load("validation"), classify)
    held_out = fitted["held_out_calibration_error"]
    assert round(report.calibration_error, 4) == held_out["after"]
    assert held_out["after"] < held_out["before"]
