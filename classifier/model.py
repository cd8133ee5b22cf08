"""The trained linear model: a feature vocabulary and one weight row per feature.

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

from classifier.intent import INTENTS, Label


@dataclass(frozen=True)
class IntentModel:
    """Vocabulary, weights (n_features x n_labels) and biases of a multinomial logistic model."""

    vocab: tuple[str, ...]
    weights: npt.NDArray[np.float64]
    bias: npt.NDArray[np.float64]
    labels: tuple[Label, ...] = INTENTS
    metadata: dict[str, Any] = field(default_factory=dict)
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {f: i for i, f in enumerate(self.vocab)})

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

    def scores(self, idx: list[int], vals: list[float]) -> npt.NDArray[np.float64]:
        """Raw class scores (logits) for one normalised sparse vector."""
        if not idx:
            return self.bias.copy()
        out: npt.NDArray[np.float64] = np.asarray(vals) @ self.weights[idx] + self.bias
        return out

    def proba(self, feats: dict[str, float]) -> npt.NDArray[np.float64]:
        """Class probabilities for one feature dict."""
        idx, vals, _ = self.known(feats)
        return softmax(self.scores(idx, vals))


def softmax(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Numerically safe softmax of a 1-D array."""
    e = np.exp(z - z.max())
    out: npt.NDArray[np.float64] = e / e.sum()
    return out
