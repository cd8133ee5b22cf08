"""Leave-one-source-out (LOSO) scores of the intent model on its training sources: how
variants of the model are compared and chosen, never on the held-out rows, which are only
reported (docs/classifier.md, "Variants tried").

For each seed (13, 14, 15: the seed draws the detector's negative sentences), every training
source is scored by a model fit without it, its own detector too (`calibration.out_of_fold`:
the folds the shipped temperature is fit to), once in the shipped configuration and once
with another weight of complement naive Bayes' log-probabilities added to the LR's weights
(`TrainConfig.nb_scale`, `classifier.train.nb_weights`; `--nb-scale 0` is the model shipped
before 2026-12-06). Per seed and configuration it prints:

- the macro-F1 of the left-out predictions (a temperature moves no label);
- the route accuracy of the left-out predictions as the router routes them: each source's
  scores tempered by the temperature fit to the other sources' scores, and below the shipped
  `min_confidence` (0.35) sent to the default local route whatever the label. Labels and
  confidence meet in this one number: a variant that gains labels but spreads confidence
  sends more requests to the default route and can lose here;
- the temperature fit to all left-out scores, as training fits it;
- whether a temperature carries to a source it was not fit on: each source's expected
  calibration error under the temperature fit to the other sources' scores, against none
  (rows-weighted mean over sources);
- for the variant, the NB term's weight relative to the LR's that a two-weight fit of the
  left-out scores by log loss picks (stacking): the NB weight LOSO would choose.

With ``--augment-rows N`` (and ``--augment-negatives``, ``--augment-weight``) the variant is
constraint-insertion augmentation (`TrainConfig.augment_rows`, `classifier/augment.py`)
instead of NB, and there is no stacking line.

Run: ``.venv/bin/python tests/bench/loso_classifier.py`` (not part of `make test`: six
leave-one-source-out runs of 14 folds each, 5-6 minutes on the shared build machine).
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

from classifier import calibration, corpus
from classifier.evaluation import LOCAL, calibration_error, prf
from classifier.intent import INTENTS
from classifier.train import TrainConfig

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
SEEDS = (13, 14, 15)
MIN_CONFIDENCE = 0.35  # the shipped `classifier.min_confidence` (default route: coding, local)


def macro_f1(scores: F64, gold: I64) -> float:
    """Macro-F1 of the argmax over the intents present in `gold`."""
    g = [INTENTS[i] for i in gold]
    p = [INTENTS[i] for i in scores.argmax(axis=1)]
    present = sorted(set(g))
    return sum(prf(g, p, label)["f1"] for label in present) / len(present)


def ece(scores: F64, gold: I64, temperature: float) -> float:
    p = calibration.tempered_probabilities(scores, temperature)
    return calibration_error(p.max(axis=1).tolist(), (p.argmax(axis=1) == gold).tolist())


def nested_ece(scores: F64, gold: I64, sources: npt.NDArray[np.str_]) -> tuple[float, float]:
    """Rows-weighted mean over sources of the expected calibration error without a
    temperature and with the one fit to the other sources' scores."""
    none = fitted = 0.0
    for source in sorted(set(sources.tolist())):
        out = sources == source
        t = calibration.fit_temperature(scores[~out], gold[~out])
        none += out.sum() * ece(scores[out], gold[out], 1.0)
        fitted += out.sum() * ece(scores[out], gold[out], t)
    return none / len(gold), fitted / len(gold)


def routed_accuracy(scores: F64, gold: I64, sources: npt.NDArray[np.str_]) -> float:
    """Route accuracy as the router routes (`evaluation.as_routed` at the shipped
    `min_confidence`), each source tempered by the temperature fit to the others' scores, as
    a source the model never saw meets the shipped temperature."""
    local = np.array([intent in LOCAL for intent in INTENTS])
    hits = 0
    for source in sorted(set(sources.tolist())):
        out = sources == source
        t = calibration.fit_temperature(scores[~out], gold[~out])
        p = calibration.tempered_probabilities(scores[out], t)
        routed = np.where(p.max(axis=1) < MIN_CONFIDENCE, True, local[p.argmax(axis=1)])
        hits += int((routed == local[gold[out]]).sum())
    return hits / len(gold)


def stacked_weight(base: F64, combined: F64, gold: I64, base_scale: float, scale: float) -> float:
    """The NB weight relative to the LR's, b / a of `a * lr + b * nb`, of least log loss on
    the left-out rows, from two models that differ only in the NB weight (`base_scale`,
    `scale`). Both inputs are log-probabilities, so `combined - base` is `scale - base_scale`
    times the NB term plus a constant per row, which no softmax sees."""
    nb = (combined - base) / (scale - base_scale)
    lr = base - base_scale * nb
    rows = np.arange(len(gold))

    def loss(ab: F64) -> float:
        z = ab[0] * lr + ab[1] * nb
        z = z - z.max(axis=1, keepdims=True)
        logp = z[rows, gold] - np.log(np.exp(z).sum(axis=1))
        return float(-logp.mean())

    found = minimize(loss, np.ones(2), method="Nelder-Mead", options={"xatol": 1e-5})
    return float(found.x[1] / found.x[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nb-scale", type=float, default=0.0, help="the variant's NB weight")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    # constraint-insertion augmentation instead of NB (`TrainConfig.augment_rows`)
    parser.add_argument("--augment-rows", type=int, default=0)
    parser.add_argument("--augment-negatives", type=float, default=0.0)
    parser.add_argument("--augment-weight", type=float, default=1.0)
    args = parser.parse_args()
    augmenting = args.augment_rows > 0
    rows = corpus.load("train")
    sentences = corpus.load_sentences()
    # `out_of_fold` scores the sources in sorted order, each source's rows in file order
    order = [r.source for s in sorted({r.source for r in rows}) for r in rows if r.source == s]
    sources = np.array(order)
    print(
        "| seed | model | LOSO macro-F1 | LOSO route accuracy as routed | temperature"
        " | nested ECE: none -> tempered |"
    )
    print("|---|---|---|---|---|---|")
    gains: list[float] = []
    for seed in args.seeds:
        shipped = TrainConfig(seed=seed)
        if augmenting:
            variant = dataclasses.replace(
                shipped,
                augment_rows=args.augment_rows,
                augment_negatives=args.augment_negatives,
                augment_weight=args.augment_weight,
            )
            label = (
                f"+ {args.augment_rows} made rows, look-alikes x{args.augment_negatives},"
                f" weight {args.augment_weight}"
            )
        else:
            variant = dataclasses.replace(shipped, nb_scale=args.nb_scale)
            label = f"+ CNB x{args.nb_scale}"
        out: dict[str, tuple[F64, I64]] = {}
        for name, config in (("shipped", shipped), (label, variant)):
            scores, gold = calibration.out_of_fold(rows, sentences, config)
            assert len(gold) == len(rows), "a training row was read as no evidence"
            out[name] = scores, gold
            none, tempered = nested_ece(scores, gold, sources)
            print(
                f"| {seed} | {name} | {macro_f1(scores, gold):.4f}"
                f" | {routed_accuracy(scores, gold, sources):.4f}"
                f" | {calibration.fit_temperature(scores, gold)} | {none:.4f} -> {tempered:.4f} |"
            )
        (base, gold), (combined, _) = out.values()
        gains.append(macro_f1(combined, gold) - macro_f1(base, gold))
        if augmenting:
            continue
        if args.nb_scale == shipped.nb_scale:
            continue
        weight = stacked_weight(base, combined, gold, shipped.nb_scale, args.nb_scale)
        print(f"|  | NB weight of least log loss | {weight:.3f} |  |  |  |")
    print("\ngain in LOSO macro-F1 per seed: " + ", ".join(f"{g:+.4f}" for g in gains))


if __name__ == "__main__":
    main()
