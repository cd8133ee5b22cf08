"""Complement naive Bayes folded into the logistic model's weights (`TrainConfig.nb_scale`):
one linear model whose scores are the LR's plus NB's own, so the artifact and the cost of a
request stay the same. At half weight in the shipped configuration (docs/classifier.md,
"Variants tried"); tests/bench/loso_classifier.py measures it."""

from __future__ import annotations

import numpy as np
from sklearn.naive_bayes import ComplementNB

from classifier import corpus
from classifier.clip import clip
from classifier.features import text_features
from classifier.intent import INTENTS
from classifier.train import NB_ALPHA, TrainConfig, fit, matrix, nb_weights, sample_weights


def test_the_nb_term_is_complement_nb_folded_into_the_weights() -> None:
    rows = corpus.load("train")[::10]
    plain = fit(rows, TrainConfig(max_iter=300, nb_scale=0.0))
    combined = fit(rows, TrainConfig(max_iter=300, nb_scale=0.75))
    assert combined.vocab == plain.vocab
    assert np.array_equal(combined.bias, plain.bias)
    x = matrix(plain, [text_features(clip(r.text)) for r in rows])
    y = np.array([INTENTS.index(r.label) for r in rows])
    term = nb_weights(x, y, sample_weights(rows))
    assert np.allclose(combined.weights - plain.weights, 0.75 * term)
    assert np.allclose(term.sum(axis=1), 0.0)  # centred: a constant per feature, no softmax sees
    # the same class scores as scikit-learn's complement NB, up to a constant per row
    nb = ComplementNB(alpha=NB_ALPHA).fit(x, y, sample_weight=sample_weights(rows))
    ours = x @ term
    theirs = nb.predict_joint_log_proba(x)
    centred = [s - s.mean(axis=1, keepdims=True) for s in (ours, theirs)]
    assert np.allclose(*centred)
    assert np.array_equal(ours.argmax(axis=1), nb.predict(x))
