"""A temperature for the model's scores, so that its confidence means what it says on
sources it never saw.

The router compares the confidence with `classifier.min_confidence`, and the issue asks for
a calibrated one. A logistic model's softmax is fit to the sources it learnt from; on a
new source's style it was under-confident (held-out: 0.45-0.75 confidence, 0.68-0.93 of
them right). So the scores are divided by one temperature, fit by log loss to
*leave-one-source-out* scores of the training rows: each source scored by a model trained
without it (its own detector too), which is what traffic in an unseen style looks like.
Never to the held-out rows: they only report how well it carries over (`docs/classifier.md`).

Dividing the weights and biases by the temperature keeps every argmax: labels, macro-F1 and
route accuracy do not move, only the confidence (and so which requests fall below
`min_confidence`). The exported model carries the tempered weights; scoring is unchanged.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize_scalar

from classifier.corpus import Example, Sentence
from classifier.decision import probabilities, request_features
from classifier.evaluation import body
from classifier.intent import INTENTS
from classifier.model import Embedding, IntentModel
from classifier.request import view
from classifier.train import TrainConfig, fit, fit_detector

F64 = npt.NDArray[np.float64]
BOUNDS = (0.1, 10.0)


def out_of_fold(
    rows: Sequence[Example],
    sentences: Sequence[Sentence],
    config: TrainConfig,
    embedding: Embedding | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> tuple[F64, npt.NDArray[np.int64]]:
    """Each training row's class scores from a model fit without its source (with the same
    embedding block as the shipped one), and its gold label's index. The scores are the log
    probabilities `classify` computes, which differ from the logits by a constant per row:
    the same softmax at every temperature. Rows the fold's model reads nothing in
    (classified `unknown`) are left out: their confidence is 0 whatever the temperature.
    Each fold is told to `progress` as it starts: the folds are most of a training's time."""
    scores: list[list[float]] = []
    gold: list[int] = []
    sources = sorted({r.source for r in rows})
    for n, source in enumerate(sources, 1):
        rest = [r for r in rows if r.source != source]
        progress(f"calibration fold {n}/{len(sources)}: {len(rest):,} rows, {source} left out")
        detector = fit_detector(sentences, rest, config)
        fold = fit(rest, config, embedding=embedding, detector=detector, sentences=sentences)
        for row in rows:
            if row.source != source:
                continue
            v = view(body(row.text))
            p, idx, _, _ = probabilities(
                fold, v, request_features(fold, v, detector.read(v.latest))
            )
            if not fold.lexical.isdisjoint(idx):
                scores.append([math.log(max(x, 1e-300)) for x in p])
                gold.append(INTENTS.index(row.label))
    return np.array(scores), np.array(gold, dtype=np.int64)


def tempered_probabilities(scores: F64, temperature: float) -> F64:
    """Row-wise softmax of `scores / temperature`."""
    z = scores / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: F64 = e / e.sum(axis=1, keepdims=True)
    return out


def log_loss(scores: F64, gold: npt.NDArray[np.int64], temperature: float) -> float:
    p = tempered_probabilities(scores, temperature)[np.arange(len(gold)), gold]
    return float(-np.mean(np.log(np.maximum(p, 1e-300))))


def fit_temperature(scores: F64, gold: npt.NDArray[np.int64]) -> float:
    """The temperature of least log loss, to four decimals (the artifact's metadata and the
    report show it; a last-digit wobble between machines should not change them)."""
    found = minimize_scalar(lambda t: log_loss(scores, gold, t), bounds=BOUNDS, method="bounded")
    return round(float(found.x), 4)


def tempered(model: IntentModel, temperature: float) -> IntentModel:
    """`model` with its scores divided by `temperature` (same argmax everywhere)."""
    return dataclasses.replace(
        model,
        weights=model.weights / temperature,
        bias=model.bias / temperature,
        dense_weights=model.dense_weights / temperature,
    )
