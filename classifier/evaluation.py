"""Score a model on held-out sources: per-intent P/R/F1, macro-F1, confusion, route accuracy,
per-source accuracy, calibration and robustness probes. Pure functions over examples and
predictions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from classifier.corpus import Example
from classifier.intent import INTENTS, UNREAD, Intent, Label

# The default routes: these intents go to the local tier first, the rest to the cloud.
LOCAL: frozenset[str] = frozenset({"coding", "tool_calling", "instruction"})
Classifier = Callable[[dict[str, Any]], Intent]


def body(text: str) -> dict[str, Any]:
    """The chat request a user would send with `text` as its only message."""
    return {"model": "auto", "messages": [{"role": "user", "content": text}]}


@dataclass(frozen=True)
class Probe:
    """A hand-written robustness check: a request shape and the label it should get."""

    name: str
    text: str
    expected: Label | None  # None: any label, but confidence should be low


PROBES: tuple[Probe, ...] = (
    Probe("typos", "wrte a pyhton functon that revrses a strng", "coding"),
    Probe("typos", "solv for x: 3x + 5 = 20, show the stpes", "math"),
    Probe("upper case", "WRITE A HAIKU ABOUT THE FIRST SNOW OF WINTER", "prose"),
    Probe("upper case", "DRAFT AN EMAIL TO MY LANDLORD ASKING TO FIX THE HEATING", "writing"),
    Probe("code only", "def mean(xs):\n    return sum(xs) / len(xs)\n\nprint(mean([]))", "coding"),
    Probe(
        "code only",
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
        "    import pandas\nModuleNotFoundError: No module named 'pandas'",
        "coding",
    ),
    Probe("Spanish", "Escribe un poema sobre el mar al amanecer", "prose"),
    Probe("Spanish", "Resuelve la ecuación 2x + 3 = 11 y explica cada paso", "math"),
    Probe("German", "Schreibe eine E-Mail an meinen Chef, dass ich morgen später komme", "writing"),
    Probe("German", "Schreibe eine Python-Funktion, die eine Liste von Zahlen sortiert", "coding"),
    Probe("Chinese", "写一首关于秋天落叶的诗", "prose"),
    Probe("Chinese", "用Python写一个函数计算斐波那契数列", "coding"),
    Probe("Japanese", "桜についての俳句を書いてください", "prose"),
    Probe("Japanese", "次の方程式を解いてください: 2x + 3 = 7", "math"),
    Probe("very short", "fix it", None),
    Probe("very short", "thanks!", None),
    Probe(
        "very long",
        "Here is my module:\n"
        + "def f(x):\n    return x * 2\n" * 4000
        + "\nWhy does the test fail?",
        "coding",
    ),
    Probe(  # no length count in the ask: by the labelling policy a count makes it instruction
        "very long",
        "Summarise this report for my manager:\n" + "Sales grew. " * 20000,
        "writing",
    ),
)


@dataclass
class Report:
    """Everything the training command writes into docs/classifier.md."""

    n: int
    macro_f1: float
    route_accuracy: float
    accuracy: float
    per_intent: dict[str, dict[str, float]]
    confusion: dict[str, dict[str, int]]
    per_source: dict[str, dict[str, float]]
    probes: list[dict[str, Any]] = field(default_factory=list)
    # min_confidence -> (route accuracy, share of rows sent to the default local route)
    as_routed: dict[float, tuple[float, float]] = field(default_factory=dict)
    # how far the confidence is from the share of right answers (`classifier.calibration`)
    calibration_error: float = 0.0
    # per confidence bin: lower edge, rows, mean confidence, accuracy
    reliability: list[tuple[float, int, float, float]] = field(default_factory=list)


THRESHOLDS = (0.3, 0.35, 0.4, 0.5)
BINS = 10


def as_routed(gold: Sequence[str], pred: Sequence[Intent], threshold: float) -> tuple[float, float]:
    """Route accuracy as the router routes: below `threshold` a request takes the default
    route (`coding`, local, in the shipped config), whatever the label."""
    low = [p.confidence < threshold for p in pred]
    local = [True if lo else p.label in LOCAL for p, lo in zip(pred, low, strict=True)]
    hits = [(g in LOCAL) == loc for g, loc in zip(gold, local, strict=True)]
    return _mean(hits), _mean(low)


def prf(
    gold: Sequence[str], pred: Sequence[str], label: str, weights: Sequence[float] | None = None
) -> dict[str, float]:
    """Precision, recall, F1 and support of `label`; each row counts its weight (1 if none)."""
    w = weights if weights is not None else [1.0] * len(gold)
    rows = list(zip(gold, pred, w, strict=True))
    tp = sum(x for g, p, x in rows if g == label and p == label)
    fp = sum(x for g, p, x in rows if g != label and p == label)
    fn = sum(x for g, p, x in rows if g == label and p != label)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {"precision": prec, "recall": rec, "f1": f1, "support": float(tp + fn)}


def evaluate(rows: Sequence[Example], classify: Classifier) -> Report:
    """Score `classify` on `rows` (the held-out sources) and run the probes."""
    intents = [classify(body(r.text)) for r in rows]
    pred = [i.label for i in intents]
    gold = [r.label for r in rows]
    confidence = [i.confidence for i in intents]
    correct = [g == p for g, p in zip(gold, pred, strict=True)]
    per_intent = {lb: prf(gold, pred, lb) for lb in INTENTS}
    present = [lb for lb in INTENTS if per_intent[lb]["support"]]
    # a column for the rows the model read nothing in (`unknown`) only when there are some
    columns = (*INTENTS, UNREAD) if UNREAD in pred else INTENTS
    confusion: dict[str, dict[str, int]] = {g: dict.fromkeys(columns, 0) for g in present}
    for g, p in zip(gold, pred, strict=True):
        confusion[g][p] += 1
    by_source: dict[str, list[bool]] = defaultdict(list)
    for r, p in zip(rows, pred, strict=True):
        by_source[r.source].append(p == r.label)
    return Report(
        n=len(rows),
        macro_f1=sum(per_intent[lb]["f1"] for lb in present) / len(present),
        route_accuracy=_mean((g in LOCAL) == (p in LOCAL) for g, p in zip(gold, pred, strict=True)),
        accuracy=_mean(g == p for g, p in zip(gold, pred, strict=True)),
        per_intent={lb: per_intent[lb] for lb in present},
        confusion=confusion,
        per_source={s: {"accuracy": _mean(v), "n": float(len(v))} for s, v in by_source.items()},
        probes=run_probes(classify),
        as_routed={t: as_routed(gold, intents, t) for t in THRESHOLDS},
        calibration_error=calibration_error(confidence, correct),
        reliability=reliability(confidence, correct),
    )


def run_probes(classify: Classifier) -> list[dict[str, Any]]:
    out = []
    for probe in PROBES:
        intent = classify(body(probe.text))
        ok = intent.label == probe.expected if probe.expected else intent.confidence < 0.6
        out.append(
            {
                "probe": probe.name,
                "text": probe.text[:60].replace("\n", " ") + ("…" if len(probe.text) > 60 else ""),
                "expected": probe.expected or "low confidence",
                "got": intent.label,
                "confidence": intent.confidence,
                "ok": ok,
            }
        )
    return out


def _mean(values: Any) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def calibration_error(confidence: Sequence[float], correct: Sequence[bool]) -> float:
    """Expected calibration error: over ten equal-width confidence bins, the mean gap
    between confidence and accuracy, weighted by the bin's share of rows."""
    conf = np.asarray(confidence, dtype=np.float64)
    hit = np.asarray(correct, dtype=np.float64)
    if not len(conf):
        return 0.0
    bins = np.minimum((conf * BINS).astype(int), BINS - 1)
    total = 0.0
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            total += inside.mean() * abs(conf[inside].mean() - hit[inside].mean())
    return float(total)


def reliability(
    confidence: Sequence[float], correct: Sequence[bool]
) -> list[tuple[float, int, float, float]]:
    """Per non-empty confidence bin: its lower edge, rows, mean confidence, accuracy."""
    conf = np.asarray(confidence, dtype=np.float64)
    hit = np.asarray(correct, dtype=np.float64)
    bins = np.minimum((conf * BINS).astype(int), BINS - 1)
    out = []
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            out.append(
                (b / BINS, int(inside.sum()), float(conf[inside].mean()), float(hit[inside].mean()))
            )
    return out
