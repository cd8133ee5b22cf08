"""The trained linear model: a feature vocabulary and one weight row per feature, plus an
optional static word-embedding table whose mean vector feeds a small dense weight block.

Scoring is a hand-rolled sparse dot product over plain Python and numpy, because
scikit-learn's per-call input validation alone costs more than our whole latency budget.
Training uses scikit-learn's `LogisticRegression`; `IntentModel` holds its exported weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from classifier.constraint import ConstraintDetector
from classifier.features import LEXICAL
from classifier.intent import INTENTS, Label

F64 = npt.NDArray[np.float64]
EMPTY = np.zeros((0, 0))


@dataclass(frozen=True)
class Embedding:
    """Static word vectors (rows already scaled by their SIF weight) keyed by `w:<word>`."""

    words: tuple[str, ...] = ()
    table: F64 = field(default_factory=lambda: EMPTY)
    sif: F64 = field(default_factory=lambda: np.zeros(0))
    scale: float = 1.0
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {"w:" + w: i for i, w in enumerate(self.words)})

    @property
    def dims(self) -> int:
        return int(self.table.shape[1]) if self.words else 0

    def vector(self, feats: dict[str, float]) -> F64 | None:
        """SIF-weighted mean of the vectors of the words present, L2-normalised and scaled."""
        if not self.words:
            return None
        index = self.index
        rows: list[int] = []
        vals: list[float] = []
        for feat, value in feats.items():
            i = index.get(feat)
            if i is not None:
                rows.append(i)
                vals.append(value)
        if not rows:
            return None
        v: F64 = np.asarray(vals) @ self.table[rows]
        norm = float(np.sqrt(v @ v))
        return v * (self.scale / norm) if norm > 0 else None


@dataclass(frozen=True)
class IntentModel:
    """Vocabulary, weights (n_features x n_labels) and biases of a multinomial logistic model."""

    vocab: tuple[str, ...]
    weights: F64
    bias: F64
    labels: tuple[Label, ...] = INTENTS
    metadata: dict[str, Any] = field(default_factory=dict)
    embedding: Embedding = field(default_factory=Embedding)
    dense_weights: F64 = field(default_factory=lambda: EMPTY)
    detector: ConstraintDetector = field(default_factory=ConstraintDetector)
    index: dict[str, int] = field(init=False, repr=False, compare=False)
    # vocabulary indices of the features read from words (`features.LEXICAL`): a request
    # with none of them gave the model nothing it learnt to read
    lexical: frozenset[int] = field(init=False, repr=False, compare=False)
    # token -> vocabulary indices of its word/prefix features; filled by `classifier.fast`
    # as tokens are met
    token_index: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    # (text, head) -> indexed features of a conversation's first user message or system
    # prompt, which an agent resends unchanged on every turn; filled by `classifier.fast`
    context_index: dict[tuple[str, int], dict[int, float]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {f: i for i, f in enumerate(self.vocab)})
        lexical = frozenset(i for i, f in enumerate(self.vocab) if f.startswith(LEXICAL))
        object.__setattr__(self, "lexical", lexical)
        object.__setattr__(self, "token_index", {})
        object.__setattr__(self, "context_index", {})

    def known(self, feats: dict[str, float]) -> tuple[list[int], list[float], list[str]]:
        """Indices, L2-normalised values and names of the features the model knows."""
        index = self.index
        idx: list[int] = []
        vals: list[float] = []
        names: list[str] = []
        for feat, value in feats.items():
            i = index.get(feat)
            if i is not None:
                idx.append(i)
                vals.append(value)
                names.append(feat)
        norm = math.sqrt(sum(v * v for v in vals)) or 1.0
        return idx, [v / norm for v in vals], names

    def scores(self, idx: list[int], vals: list[float], dense: F64 | None = None) -> F64:
        """Raw class scores (logits) for one normalised sparse vector and its dense part."""
        out: F64 = self.bias.copy()
        if idx:
            # `take` rather than `weights[idx]`: the same rows without fancy indexing's setup
            out += np.asarray(vals) @ self.weights.take(idx, axis=0)
        if dense is not None and self.dense_weights.size:
            out += dense @ self.dense_weights
        return out

    def proba(self, feats: dict[str, float]) -> list[float]:
        """Class probabilities for one feature dict."""
        idx, vals, _ = self.known(feats)
        return softmax(self.scores(idx, vals, self.embedding.vector(feats)))


def softmax(z: F64) -> list[float]:
    """Softmax of a short 1-D array in plain Python: for 7 values numpy's per-call overhead
    costs more than the arithmetic."""
    values = z.tolist()
    top = max(values)
    e = [math.exp(x - top) for x in values]
    total = sum(e)
    return [x / total for x in e]
