"""Constraint-insertion augmentation (`classifier/augment.py`, `TrainConfig.augment_rows`):
rows made from the fold's own chat-style rows and the detector's written constraints,
within the labelling policy's two exceptions, the same from the same seed. Off in the
shipped configuration (docs/classifier.md, "Variants tried")."""

from __future__ import annotations

import numpy as np

from classifier import augment, corpus
from classifier.clip import clip
from classifier.constraint import FORM_WORDS, ConstraintDetector
from classifier.corpus import Example, Sentence
from classifier.features import tokens
from classifier.train import TrainConfig, fit, fit_detector, made_weights, sample_weights
from tests.classifier.test_classifier_drafting import ACTIONS, DRAFTS

ROWS = corpus.load("train")
SENTENCES = corpus.load_sentences()


def never(_: str) -> bool:
    return False


def made(
    rows: list[Example], n: int = 400, negatives: float = 0.5, seed: int = 13
) -> list[augment.Made]:
    return augment.augment(rows, SENTENCES, n, negatives, seed, never)


def test_sentences_outside_the_policy_are_never_added() -> None:
    cases = {
        "Your entire response must be in lowercase letters.": True,
        "Don't use any commas anywhere in your reply.": True,
        "Write it in no more than four sentences.": True,
        # answer directives leave a question reasoning (round 4)
        "Answer with only the letter of the correct option.": False,
        "Put the final answer inside a fenced code block.": False,
        # a task of its own, not a constraint on the one asked
        "Write a poem about fog where every line has seven syllables.": False,
        # a named literary form stays prose
        "Include a haiku at the very end, set apart by a blank line.": False,
    }
    for text, ok in cases.items():
        assert augment.usable(Sentence(text, True)) is ok, text
    assert not augment.usable(Sentence("Give it a fairy-tale feel.", False, "content_wish"))
    assert not augment.usable(Sentence("Reply with the letter.", True, "answer_directive"))


def test_rows_are_made_from_the_rows_given_and_labelled_by_the_policy() -> None:
    out = made(ROWS)
    assert len(out) == 600
    constraints = {s.text for s in SENTENCES if augment.usable(s)}
    wishes = {s.text for s in SENTENCES if s.kind == augment.CONTENT_WISH}
    for m in out:
        assert m.row.source == augment.SOURCE
        text, row = m.row.text, ROWS[m.base]
        added = [s for s in (*constraints, *wishes) if s in text]
        assert added, text
        sentence = max(added, key=len)
        # the base row's words, with one sentence added
        assert text.replace(sentence, "", 1).split() == row.text.split()
        assert row.source in augment.BASE_SOURCES and row.label in augment.BASE_LABELS
        assert FORM_WORDS.isdisjoint(tokens(row.text))
        if sentence in constraints:
            assert m.row.label == "instruction"
        else:
            assert m.row.label == row.label
        assert sentence in clip(text)  # the classifier reads what the label rests on
        assert augment.half_of(Sentence(sentence, True)) == m.half
    assert sum(m.row.label == "instruction" for m in out) == 400


def test_a_fold_augments_only_its_own_rows() -> None:
    """Leave-one-source-out: augmentation reads only the fold's rows, so a source left out
    lends none of its rows to the model that scores it."""
    assert made([r for r in ROWS if r.source not in augment.BASE_SOURCES]) == []
    authored = [r for r in ROWS if r.source == "authored"]
    out = made(authored)
    assert len(out) == 600
    assert all(authored[m.base].text.split()[-1] in m.row.text for m in out)


def test_the_draw_is_seeded() -> None:
    assert made(ROWS) == made(ROWS)
    assert made(ROWS) != made(ROWS, seed=14)


def test_rows_the_detector_finds_a_constraint_in_are_not_used() -> None:
    detector = fit_detector(SENTENCES, ROWS[::4], TrainConfig(detector_negatives=300))

    def constrained(text: str) -> bool:
        verdict = detector.read(clip(text))
        return verdict is not None and verdict.probability > 0.5

    pool = augment.base_rows(ROWS, constrained)
    assert pool and all(not constrained(ROWS[i].text) for i in pool)
    assert len(pool) < len(augment.base_rows(ROWS, never))


def test_a_made_row_is_scored_without_its_half_of_the_sentences() -> None:
    for half in (0, 1):
        kept = augment.without_half(SENTENCES, half)
        constraints, wishes = augment.halves(SENTENCES)
        drawn = {SENTENCES[i].text for i in (*constraints, *wishes)}
        dropped = {t for t in drawn if augment.half_of(Sentence(t, True)) == half}
        assert dropped and dropped.isdisjoint(s.text for s in kept)
        assert drawn - dropped <= {s.text for s in kept}
        assert {s.text for s in SENTENCES} - drawn <= {s.text for s in kept}


def test_off_by_default_and_on_only_when_asked() -> None:
    """The shipped configuration makes no rows (its gain in leave-one-source-out was small
    and cost calibration: docs/classifier.md, "Variants tried"); 0 rows, or no sentences,
    trains as before."""
    shipped = TrainConfig()
    assert (shipped.augment_rows, shipped.augment_drafts) == (0, 0.0)
    rows = ROWS[::10]
    config = TrainConfig(max_iter=300, detector_negatives=300)
    detector = fit_detector(SENTENCES[::3], rows, config)
    plain = fit(rows, config, detector=detector)
    same = fit(rows, config, detector=detector, sentences=SENTENCES)
    assert same.vocab == plain.vocab and np.array_equal(same.weights, plain.weights)
    on = TrainConfig(max_iter=300, detector_negatives=300, augment_rows=200)
    augmented = fit(rows, on, detector=detector, sentences=SENTENCES)
    assert not np.array_equal(augmented.bias, plain.bias)
    assert isinstance(augmented.detector, ConstraintDetector)
    assert augmented.detector is detector  # the shipped detector is the one fit on all


def test_message_drafts_keep_writing_with_what_the_message_says() -> None:
    """`augment_drafts`: a draft of a message with one sentence of its content added ("Say
    that the spare key is under the blue flowerpot.") stays writing, so the made constraint
    rows do not teach that every added sentence of a request makes it instruction."""
    out = augment.augment(ROWS, SENTENCES, 200, 0.5, 13, never, drafts=0.5)
    drafts = [m for m in out if any(c in m.row.text for c in augment.MESSAGE_CONTENT)]
    assert len(out) == 400 and len(drafts) == 100
    for m in drafts:
        row = ROWS[m.base]
        assert m.row.label == "writing" and m.row.source == augment.SOURCE
        assert row.label == "writing" and row.source in augment.BASE_SOURCES
        assert augment.DRAFT.search(row.text[:300]), row.text
        content = next(c for c in augment.MESSAGE_CONTENT if c in m.row.text)
        assert m.row.text.replace(content, "", 1).split() == row.text.split()
    assert out[:300] == made(ROWS, 200, 0.5)  # the rows made before are made as before
    assert {ROWS[i].text for i in augment.draft_rows(ROWS, range(len(ROWS)))} >= {
        "compose a LinkedIn message to a former manager asking for a reference"
    }


def test_the_message_contents_are_written_apart_from_the_drafting_test() -> None:
    """The drafting test's prompts are a test set: no content sentence shares four words in
    a row with any of them."""

    def runs(text: str) -> set[tuple[str, ...]]:
        words = tokens(text.lower())
        return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}

    tested = set().union(*(runs(t) for t in (*DRAFTS, *ACTIONS)))
    for content in augment.MESSAGE_CONTENT:
        assert runs(content).isdisjoint(tested), content


def test_made_rows_apart_leave_the_real_rows_shares_alone() -> None:
    """`augment_apart`: the real rows weigh relative to each other as without augmentation;
    a made row weighs `augment_weight` times its label's mean real row."""
    rows = ROWS[::20]
    extra = [Example("x", "instruction", augment.SOURCE), Example("y", "writing", augment.SOURCE)]
    config = TrainConfig(augment_apart=True, augment_weight=0.5)
    w = made_weights(rows, extra, config)
    plain = sample_weights(rows)
    assert np.allclose(w[: len(rows)] / plain, w[0] / plain[0])
    for made_row, weight in zip(extra, w[len(rows) :], strict=True):
        same = np.array([r.label == made_row.label for r in rows])
        assert np.isclose(weight, 0.5 * w[: len(rows)][same].mean())
    assert np.isclose(w.mean(), 1.0)
    shared = made_weights(rows, extra, TrainConfig(augment_weight=0.5))
    assert not np.allclose(shared[: len(rows)] / plain, shared[0] / plain[0])
