"""How far careful readers agree with the held-out labels: the ceiling the targets sit under.

The validation labels come from each dataset's own categories mapped to intents (every
IFBench prompt is `instruction`, HelloBench's `keyword_writing` is `instruction`, its
`science_problem_solve` is `reasoning`, ...). Readers who label the same prompts by the
written policy disagree with that mapping on some rows, and a classifier that follows the
policy cannot score higher than they do without learning the mapping itself. The audit file
holds their labels for a sample of validation rows; this module scores any labelling of
those rows against any other, weighted so the sample stands for the whole validation set.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from classifier.corpus import DATA_DIR, Example
from classifier.evaluation import LOCAL, prf
from classifier.intent import INTENTS

AUDIT_PATH = DATA_DIR / "audit" / "readers.jsonl"


@dataclass(frozen=True)
class AuditRow:
    """One sampled validation row (by position in `corpus.load("validation")`) and the
    labels each reader gave it."""

    row: int
    sha256: str
    readers: dict[str, str]


@dataclass(frozen=True)
class Agreement:
    macro_f1: float
    accuracy: float
    route_accuracy: float


def text_digest(text: str) -> str:
    """A short digest of a row's text, so the audit notices when the rows it names change."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load(path: Path = AUDIT_PATH) -> list[AuditRow]:
    with path.open(encoding="utf-8") as fh:
        return [AuditRow(**json.loads(line)) for line in fh if line.strip()]


def sample_weights(rows: Sequence[AuditRow], validation: Sequence[Example]) -> list[float]:
    """Each sampled row stands for (rows of its source) / (sampled rows of its source), so
    a source sampled sparsely (SVAMP: 40 of 300) keeps its share of the validation set."""
    for r in rows:
        if text_digest(validation[r.row].text) != r.sha256:
            raise ValueError(f"audit row {r.row} no longer matches the validation data")
    population = Counter(e.source for e in validation)
    sampled = Counter(validation[r.row].source for r in rows)
    return [population[validation[r.row].source] / sampled[validation[r.row].source] for r in rows]


def agreement(pred: Sequence[str], ref: Sequence[str], weights: Sequence[float]) -> Agreement:
    """Weighted macro-F1 (over the intents `ref` uses), accuracy and local/cloud agreement
    of `pred` against `ref`."""
    per_label = [prf(ref, pred, label, weights) for label in INTENTS]
    f1s = [m["f1"] for m in per_label if m["support"]]
    total = sum(weights)
    hits = sum(w for p, r, w in zip(pred, ref, weights, strict=True) if p == r)
    same_route = sum(
        w for p, r, w in zip(pred, ref, weights, strict=True) if (p in LOCAL) == (r in LOCAL)
    )
    return Agreement(sum(f1s) / len(f1s), hits / total, same_route / total)


def compare(
    rows: Sequence[AuditRow], validation: Sequence[Example], model: Sequence[str]
) -> list[tuple[str, Agreement]]:
    """Every reader and the model against the held-out labels, and against each other.

    `model` holds the model's label for each audit row, in order."""
    weights = sample_weights(rows, validation)
    gold = [validation[r.row].label for r in rows]
    labellings = {name: [r.readers[name] for r in rows] for name in rows[0].readers}
    labellings["model"] = list(model)
    out = [
        (f"{name} vs held-out labels", agreement(v, gold, weights))
        for name, v in labellings.items()
    ]
    names = list(labellings)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            out.append((f"{a} vs {b}", agreement(labellings[a], labellings[b], weights)))
    return out
