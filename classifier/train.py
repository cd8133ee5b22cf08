"""Fit the intent model from `classifier/data/`: deterministic for a given seed and data.

The same data, seed and library versions give the same weights to the bit in any process, on
any core count (`lbfgs_fit`); only another CPU family can move the last bits, through the
BLAS kernels OpenBLAS picks for it (the artifact's metadata names them).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, hstack
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import ComplementNB
from threadpoolctl import threadpool_limits

from classifier import augment
from classifier.clip import clip
from classifier.constraint import ConstraintDetector, sentence_tokens, sentences
from classifier.corpus import ANSWER_DIRECTIVE, ANSWER_KINDS, Example, Sentence
from classifier.features import text_features, token_entry
from classifier.intent import INTENTS
from classifier.model import Embedding, IntentModel

Featurizer = Callable[[str], dict[str, float]]
NB_ALPHA = 0.3  # complement NB's additive smoothing (`nb_weights`)


@dataclass(frozen=True)
class TrainConfig:
    """Knobs of one training run; the defaults are the shipped model's."""

    c: float = 1.0
    min_df: int = 2
    seed: int = 13
    max_iter: int = 3000
    embed_scale: float = 1.0
    # sentences of non-instruction training rows added to the detector's negatives
    detector_negatives: int = 2000
    # weight of complement naive Bayes' log-probabilities added to the LR's weights
    # (`nb_weights`); 0 leaves the logistic model alone (the model shipped until 2026-12-06)
    nb_scale: float = 0.5
    # rows made by putting a written constraint sentence into a chat-style writing, prose or
    # reasoning request (`classifier/augment.py`); 0, the shipped model, makes none (1000,
    # with augment_negatives 1, augment_weight 0.5 and augment_drafts 0.2, gained a little
    # in leave-one-source-out at a cost in calibration: docs/classifier.md, "Variants tried")
    augment_rows: int = 0
    # content-wish look-alikes made per constraint row, keeping the base row's label
    augment_negatives: float = 0.0
    # the made rows' weight relative to what `sample_weights` gives them as one more source
    augment_weight: float = 1.0
    # message drafts made per constraint row, one sentence of the message's content added
    # (`augment.MESSAGE_CONTENT`), labelled writing
    augment_drafts: float = 0.0
    # the made rows take no share of the real sources' weight: each real row weighs what it
    # weighs without them, each made row `augment_weight` times its label's mean real row
    augment_apart: bool = False


def sample_weights(rows: Sequence[Example]) -> np.ndarray:
    """Each label weighs the same; inside a label a source weighs by the square root of its
    size, so a big dataset cannot teach its style as the meaning of the label."""
    by_label = Counter(r.label for r in rows)
    by_source = Counter((r.label, r.source) for r in rows)
    share: dict[tuple[str, str], float] = {}
    for label in by_label:
        sources = {k: n for k, n in by_source.items() if k[0] == label}
        total = sum(math.sqrt(n) for n in sources.values())
        for key, n in sources.items():
            share[key] = math.sqrt(n) / total / n  # per-row weight inside the label
    w = np.array([share[(r.label, r.source)] for r in rows])
    out: np.ndarray = w * (len(rows) / w.sum())
    return out


def build_vocab(feats: Sequence[dict[str, float]], min_df: int) -> tuple[str, ...]:
    df: Counter[str] = Counter()
    for f in feats:
        df.update(f.keys())
    return tuple(sorted(k for k, n in df.items() if n >= min_df))


def matrix(model: IntentModel, feats: Sequence[dict[str, float]]) -> csr_matrix:
    """The same normalised vectors `IntentModel.proba` scores, as one sparse matrix."""
    return sparse_rows([model.known(f)[:2] for f in feats], len(model.vocab))


def sparse_rows(rows: Sequence[tuple[list[int], list[float]]], width: int) -> csr_matrix:
    """One CSR matrix from each row's (column indices, values)."""
    data: list[float] = []
    cols: list[int] = []
    ptr = [0]
    for idx, vals in rows:
        cols.extend(idx)
        data.extend(vals)
        ptr.append(len(cols))
    return csr_matrix((data, cols, ptr), shape=(len(rows), width))


def dense_matrix(embedding: Embedding, feats: Sequence[dict[str, float]]) -> np.ndarray:
    """Each row's static-embedding vector (zeros when no word is known)."""
    out = np.zeros((len(feats), embedding.dims))
    for i, f in enumerate(feats):
        v = embedding.vector(f)
        if v is not None:
            out[i] = v
    return out


def fit_detector(
    labelled: Sequence[Sentence], rows: Sequence[Example], config: TrainConfig | None = None
) -> ConstraintDetector:
    """Train the sentence-level constraint detector (`classifier/constraint.py`) on the
    written sentences plus a seeded sample of sentences from training rows whose label is
    not instruction: those come from the styles the detector must not fire on, read as a
    request's latest message is read (clipped, at most `MAX_SENTENCES`), so none comes from
    text the detector never scores. The sentences written for the answer head train only
    that head."""
    config = config or TrainConfig()
    main = [s for s in labelled if s.kind not in ANSWER_KINDS]
    pool = [s for r in rows if r.label != "instruction" for s in sentences(clip(r.text))]
    random.Random(config.seed).shuffle(pool)
    data = [*main, *(Sentence(s, False) for s in pool)][: len(main) + config.detector_negatives]
    detector = _fit_head(data, [s.constraint for s in data], config)
    constraints = [s for s in labelled if s.constraint]
    if any(s.kind == ANSWER_DIRECTIVE for s in constraints):
        # balanced: answer directives are a small minority of the written constraints
        answers = [s.kind == ANSWER_DIRECTIVE for s in constraints]
        head = _fit_head(constraints, answers, config, "balanced")
        detector = dataclasses.replace(detector, answer_head=head)
    return detector


def _fit_head(
    data: Sequence[Sentence], y: Sequence[bool], config: TrainConfig, weigh: str | None = None
) -> ConstraintDetector:
    """One sentence-level logistic model over the words and prefixes of `data`."""
    firings = [_firings(s.text) for s in data]
    vocab = tuple(sorted({f for fired in firings for f in fired}))
    index = {f: i for i, f in enumerate(vocab)}
    x = sparse_rows([_detector_row(fired, index) for fired in firings], len(vocab))
    clf = LogisticRegression(
        C=1.0, max_iter=config.max_iter, random_state=config.seed, class_weight=weigh
    )
    lbfgs_fit(clf, x, np.array(y, dtype=int))
    return ConstraintDetector(vocab, clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))


def lbfgs_fit(
    clf: LogisticRegression, x: csr_matrix, y: np.ndarray, weights: np.ndarray | None = None
) -> None:
    """`clf.fit` with BLAS on one thread. OpenBLAS splits a long dot product (the squared
    norm of the weights that the L2 penalty adds, L-BFGS's own) among its threads and adds
    their partial sums, so one thread and two or more differ in the last bit, and L-BFGS
    grows that to ~1e-9 in the weights: a retrain with another core count, or with
    `OPENBLAS_NUM_THREADS=1`, wrote a different artifact (found in review; measured, the
    thread count of OpenMP and `PYTHONHASHSEED` change nothing). One thread is no slower:
    on the busy 2-core build machine the whole training took 36 s instead of 186 s, the two
    threads waiting on each other (docs/benchmarks.md, "Training on one BLAS thread")."""
    with threadpool_limits(limits=1, user_api="blas"):
        clf.fit(x, y, sample_weight=weights)


def _detector_row(fired: Counter[str], index: dict[str, int]) -> tuple[list[int], list[float]]:
    """A sentence's detector vector: each firing counts 1, over the root of all firings."""
    scale = 1 / math.sqrt(sum(fired.values())) if fired else 0.0
    return [index[f] for f in fired], [n * scale for n in fired.values()]


def _firings(sentence: str) -> Counter[str]:
    """Each distinct token's word and prefix features, counted (two tokens can share a
    prefix): exactly what `ConstraintDetector.probability` sums."""
    out: Counter[str] = Counter()
    for tok in sentence_tokens(sentence):
        out.update(token_entry(tok)[0])
    return out


def fit(
    rows: Sequence[Example],
    config: TrainConfig | None = None,
    featurize: Featurizer = text_features,
    embedding: Embedding | None = None,
    detector: ConstraintDetector | None = None,
    sentences: Sequence[Sentence] = (),
) -> IntentModel:
    """Train on `rows` (and the rows `config.augment_rows` makes from them and the
    detector's written `sentences`) and return the exported linear model."""
    config = config or TrainConfig()
    embedding = embedding or Embedding()
    detector = detector or ConstraintDetector()
    # read as a request's text is read (`classifier.clip.clip`): the stored rows were
    # clipped in characters, and the classifier now reads CJK text to fewer of them
    texts = [clip(r.text) for r in rows]
    feats = [{**featurize(t), **detector.features(t)} for t in texts]
    made, made_feats = made_rows(rows, sentences, config, detector, featurize)
    feats += made_feats
    vocab = build_vocab(feats, config.min_df)
    shell = IntentModel(vocab, np.zeros((len(vocab), len(INTENTS))), np.zeros(len(INTENTS)))
    x = matrix(shell, feats)
    if embedding.dims:
        x = hstack([x, csr_matrix(dense_matrix(embedding, feats))]).tocsr()
    y = np.array([INTENTS.index(r.label) for r in [*rows, *(m.row for m in made)]])
    clf = LogisticRegression(C=config.c, max_iter=config.max_iter, random_state=config.seed)
    weights = made_weights(rows, [m.row for m in made], config)
    lbfgs_fit(clf, x, y, weights)
    coef = np.zeros((x.shape[1], len(INTENTS)))
    bias = np.zeros(len(INTENTS))
    coef[:, clf.classes_] = clf.coef_.T
    bias[clf.classes_] = clf.intercept_
    if config.nb_scale:  # on the sparse features only: the embedding block can be negative
        coef[: len(vocab)] += config.nb_scale * nb_weights(x[:, : len(vocab)], y, weights)
    dense = coef[len(vocab) :] if embedding.dims else np.zeros((0, 0))
    return IntentModel(
        vocab,
        coef[: len(vocab)],
        bias,
        embedding=embedding,
        dense_weights=dense,
        detector=detector,
    )


def made_weights(
    rows: Sequence[Example], made: Sequence[Example], config: TrainConfig
) -> np.ndarray:
    """Row weights for `rows` followed by `made`. By default the made rows are one more
    source inside each of their labels (`augment.SOURCE`), so they take a share of each
    label's weight from its real sources; `augment_apart` leaves the real rows' shares as
    they are without augmentation and gives each made row its label's mean real weight."""
    if not made:
        return sample_weights(rows)
    if config.augment_apart:
        real = sample_weights(rows)
        mean = {
            label: real[[r.label == label for r in rows]].mean()
            for label in {r.label for r in rows}
        }
        weights = np.concatenate([real, [mean.get(m.label, 1.0) for m in made]])
    else:
        weights = sample_weights([*rows, *made])
    weights[len(rows) :] *= config.augment_weight
    out: np.ndarray = weights * (len(weights) / weights.sum())
    return out


def made_rows(
    rows: Sequence[Example],
    labelled: Sequence[Sentence],
    config: TrainConfig,
    detector: ConstraintDetector,
    featurize: Featurizer,
) -> tuple[list[augment.Made], list[dict[str, float]]]:
    """The rows `classifier.augment` makes from `rows`, and their features. A made row's
    detector features come from a detector fit on the same rows but without the half of the
    sentences its sentence was drawn from: the shipped detector has learnt every written
    sentence, and would score a made row's constraint as surely as no unseen request's."""
    if not config.augment_rows or not labelled:
        return [], []

    def constrained(text: str) -> bool:
        verdict = detector.read(clip(text))
        return verdict is not None and verdict.probability > 0.5

    made = augment.augment(
        rows,
        labelled,
        config.augment_rows,
        config.augment_negatives,
        config.seed,
        constrained,
        config.augment_drafts,
    )
    held_out = [fit_detector(augment.without_half(labelled, h), rows, config) for h in (0, 1)]
    texts = [clip(m.row.text) for m in made]
    feats = [
        {**featurize(t), **held_out[m.half].features(t)} for t, m in zip(texts, made, strict=True)
    ]
    return made, feats


def nb_weights(x: csr_matrix, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Complement naive Bayes (Rennie et al., 2003) over the same normalised features and row
    weights as the logistic model, as a matrix to add to its weights: NB's score for a class
    is the features' values times its log-probabilities, a linear function of the same
    vector, so the sum is still one linear model (the artifact's format and a request's cost
    unchanged). Each feature's row is centred across the labels: a constant per feature adds
    the same to every class's score, which no softmax sees, and keeps the float32 weights
    small. Labels absent from `y` get no NB weight. NB counts a word seen in a handful of
    rows at full strength and a word's prefix as a second witness, where the regularised LR
    shrinks both (docs/classifier.md, "Variants tried": why it is off)."""
    nb = ComplementNB(alpha=NB_ALPHA).fit(x, y, sample_weight=weights)
    logs = nb.feature_log_prob_.T
    out = np.zeros((x.shape[1], len(INTENTS)))
    out[:, nb.classes_] = logs - logs.mean(axis=1, keepdims=True)
    return out
