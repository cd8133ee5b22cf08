"""The sentence-level constraint detector: splitting, scoring as trained, bounds, and the
shipped model reading one constraint sentence inside a long task as instruction."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from classifier import classify, constraint, explain, features
from classifier.cli import app
from classifier.clip import clip
from classifier.constraint import (
    ANSWER_HIGH,
    FORM_HIGH,
    FORM_SCORE,
    HIGH,
    SCORE,
    ConstraintDetector,
    sentence_tokens,
    sentences,
)
from classifier.corpus import Example, Sentence
from classifier.decision import model
from classifier.evaluation import body
from classifier.features import tokens
from classifier.train import TrainConfig, _firings, fit_detector

STORY = (
    "Write a story about a lighthouse keeper on a remote northern island who finds a message "
    "in a bottle. The message is decades old and names a village she has never heard of. She "
    "decides to leave the lighthouse for the first time in twenty years to find its author, "
    "and on the way she meets a fisherman, a widow and a boy who knows the old sea roads. "
    "The ending should feel earned, quiet and a little sad."
)
CONSTRAINED = STORY + " No sentence may contain more than twelve words."


def test_sentences_split_on_stops_line_breaks_and_cjk_full_stops() -> None:
    text = "Write a poem about rain. Use exactly four lines!\n- \n写一首秋天的诗。每行五个字。"
    assert sentences(text) == [
        "Write a poem about rain.",
        "Use exactly four lines!",
        "写一首秋天的诗。",
        "每行五个字。",
    ]


def test_sentences_are_bounded() -> None:
    text = "This is one sentence here. " * 10_000
    assert len(sentences(text)) == constraint.MAX_SENTENCES


# Sentences whose tokens depend on where a sentence ends: a CJK stop with ASCII after it
# ("1abc" alone is the token "0"), final sigma, a run starting CJK, signs in the CJK block
# that are not letters, a lone surrogate, control characters and a NUL (the join's mark).
EDGES = [
    "Write it.x。1abc and 1。中 too",
    "ΑΣ. Β ends ΑΣ。Β with sigma, word ΑΣ\nΒγ starts",
    "中文abc・ー゠゛ and 0x中 here。Every line",
    "bad \ud800 byte. next \x1c part\x85 end",
    "emoji 😀 and ｆｕｌｌ１２ width。한국어 문장",
]


@pytest.mark.parametrize("text", [*EDGES, " ".join(EDGES), "NUL \x00 here. " + EDGES[0]])
def test_sentences_tokenised_together_get_exactly_their_own_tokens(text: str) -> None:
    parts = sentences(text)
    assert constraint.each_sentence_tokens(parts) == [sentence_tokens(p) for p in parts]


def test_a_long_message_is_tokenised_once_not_once_per_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The detector tokenised each of up to 40 sentences on its own: 41 `tokens` calls made a
    2,000-character Chinese message cost 1.2-1.6 ms, over the 1 ms p99 (found in review).
    Then the features read the message once and the detector its sentences once; now one
    pass serves both (`classifier/reading.py`)."""
    calls: list[int] = []

    def counted(text: str) -> list[str]:
        calls.append(len(text))
        return tokens(text)

    text = ("请写一首关于春天的诗，每行五个字。我们今天去公园散步，天气很好。" * 100)[:2000]
    expected = classify(body(text))
    assert len(sentences(text)) == constraint.MAX_SENTENCES
    monkeypatch.setattr(features, "tokens", counted)
    monkeypatch.setattr(constraint, "tokens", counted)
    assert classify(body(text)) == expected
    assert len(calls) == 1


def test_a_request_scores_as_its_strongest_sentence() -> None:
    detector = ConstraintDetector(("w:every", "w:must", "p:sente"), np.array([1.5, 2.0, 0.5]), -1.0)
    plain = "Tell me about the history of Rome."
    ruled = "Every sentence must rhyme."
    assert detector.probability(plain) == pytest.approx(1 / (1 + math.exp(1.0)))
    # every, sentence (word + prefix), must, rhyme: 5 firings, 4.0 of known weight
    assert detector.probability(ruled) == pytest.approx(1 / (1 + math.exp(1.0 - 4.0 / 5**0.5)))
    found = detector.strongest(f"{plain} {ruled} {plain}")
    p, where = found.probability, found.sentence
    assert (p, where) == (detector.probability(ruled), ruled)
    assert detector.features(plain) == {SCORE: detector.probability(plain)}
    assert set(detector.features(ruled)) == {SCORE, HIGH}
    assert ConstraintDetector().features(ruled) == {}


def test_scoring_uses_the_features_training_counted() -> None:
    labelled = [
        Sentence("Answer in exactly three words.", True),
        Sentence("Use no commas at all.", True),
        Sentence("Tell me about whales.", False),
        Sentence("Write a poem about the sea.", False),
    ]
    detector = fit_detector(labelled, [], TrainConfig(detector_negatives=0))
    index = {f: i for i, f in enumerate(detector.vocab)}
    for s in labelled:
        fired = _firings(s.text)
        dot = sum(detector.weights[index[f]] * n for f, n in fired.items())
        logit = detector.bias + dot / math.sqrt(sum(fired.values()))
        assert detector.probability(s.text) == pytest.approx(1 / (1 + math.exp(-logit)))
    assert [detector.probability(s.text) > 0.5 for s in labelled] == [True, True, False, False]


def test_negative_sentences_come_only_from_what_a_request_would_read() -> None:
    """A training row is read through the request's clip and the sentence bound: a sentence
    the detector never scores (the middle of a long message) teaches it nothing."""
    labelled = [Sentence("Answer in exactly three words.", True), Sentence("Hi there.", False)]
    middle = "The quokka grazed beside the marsupial burrow."
    filler = "The weather was mild and the river ran slowly past the town. "
    text = filler * 30 + middle + " " + filler * 40  # sentence 31 of 71: within the bound
    assert middle in text and middle not in clip(text)
    row = Example(text, "prose", "test")
    detector = fit_detector(labelled, [row], TrainConfig(detector_negatives=10_000))
    assert "w:quokka" not in detector.vocab
    assert "w:weather" in detector.vocab  # the clipped head's sentences are negatives


def test_the_shipped_detector_fires_on_a_constraint_sentence_only() -> None:
    detector = model().detector
    assert detector.vocab
    assert detector.strongest(STORY).probability < 0.5
    found = detector.strongest(CONSTRAINED)
    p, where = found.probability, found.sentence
    assert p > 0.5
    assert where == "No sentence may contain more than twelve words."


# Written for this test (in no data file): quotas and rules of the kinds the first round of
# detector sentences lacked. The previous detector scored the first three 0.31, 0.58 and 0.51.
QUOTAS = (
    "Include at least 30 pronouns.",
    "Keep every word to six letters or fewer.",
    "Alternate between sentences of under five words and sentences of over fifteen.",
    "Use no more than two adjectives in the whole poem.",
    "Every line of dialogue must be under ten words.",
    "oh and put a question mark at the end of every third sentence",
    "No sentence should contain more than one comma.",
)
NOT_QUOTAS = (
    "The story should be about two brothers who run a ferry.",
    "Make the ending hopeful but not sappy.",
    "My son wrote his first sentence today.",
    "There were at least thirty people at the wedding.",
    "Each paragraph of my essay feels too long, what should I do?",
)


def test_the_shipped_detector_reads_quotas_on_words_and_sentences() -> None:
    detector = model().detector
    assert [s for s in QUOTAS if detector.probability(s) < 0.75] == []
    assert [s for s in NOT_QUOTAS if detector.probability(s) > 0.4] == []


# Written for this test (in no data file). An answer directive says how to present a final
# answer and leaves a question reasoning or math (the policy's round 4); a rule on the whole
# text in the same words is a constraint.
ANSWER_DIRECTIVES = (
    "Just give me the letter of the right option.",
    "Respond with a single number and nothing more.",
    "answer yes or no",
    "Which one? Name it in one word.",
    "Write your final result inside \\boxed{}.",
    "Antworte nur mit dem Buchstaben.",
)
WHOLE_TEXT_RULES = (
    "Answer in no more than forty words.",
    "Reply entirely in lowercase letters.",
    "Each line of the answer must begin with the letter S.",
    "Respond in three paragraphs separated by blank lines.",
    "Use the word 'tide' at least three times in your reply.",
)


def test_an_answer_directive_is_not_read_as_a_constraint_on_the_text() -> None:
    """Either the detector does not fire, or its answer head sends the score out under
    `c:answer_constraint`; the previous detector gave four of the six `c:constraint_hi`."""
    detector = model().detector
    assert [s for s in ANSWER_DIRECTIVES if HIGH in detector.features(s)] == []
    assert [s for s in WHOLE_TEXT_RULES if HIGH not in detector.features(s)] == []
    fired = [s for s in ANSWER_DIRECTIVES if ANSWER_HIGH in detector.features(s)]
    assert len(fired) >= 3  # the head, not only the first model, keeps them apart
    info = explain(body(f"Is 91 a prime number? {fired[0]}"))
    assert info["constraint"]["answer_directive"] is True
    assert info["intent"] in {"math", "reasoning"}


def test_a_constraint_in_a_named_form_is_its_own_feature() -> None:
    """The policy keeps a poem in a named form prose with its rules spelled out, so the
    model sees those rules apart from arbitrary constraints (`constraint.py`)."""
    detector = model().detector
    rule = "Each line must begin with a letter of SNOW."
    for form in ("an acrostic", "a HAIKU", "un acróstico"):
        assert set(detector.features(f"Write {form} about winter. {rule}")) == {
            FORM_SCORE,
            FORM_HIGH,
        }
    assert set(detector.features(f"Write a story about winter. {rule}")) == {SCORE, HIGH}
    assert FORM_SCORE in detector.features("写一首藏头诗。每行的第一个字连起来是春天快乐。")
    assert SCORE in detector.features("写一个故事。每行的第一个字连起来是春天快乐。")


@pytest.mark.parametrize(
    ("task", "without"),
    [
        ("Write a blog post about the benefits of walking to work.", "writing"),
        ("Explain why the sky is blue.", "reasoning"),
    ],
)
def test_one_constraint_sentence_makes_a_request_instruction(task: str, without: str) -> None:
    rule = "Put the whole thing in lowercase."
    assert classify(body(task)).label == without
    assert classify(body(f"{task} {rule}")).label == "instruction"
    info = explain(body(f"{task} {rule}"))
    assert info["constraint"]["sentence"] == rule
    assert SCORE in {f["feature"] for f in info["features"]}


def test_explain_reads_the_detector_once_and_agrees_with_classify(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`explain` takes its features, its intent and the sentence it shows from one reading
    of the latest message (it used to read it three times)."""
    scans: list[str] = []
    split = constraint.sentences

    def counted(text: str) -> list[str]:
        scans.append(text)
        return split(text)

    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    bodies = [
        body("Write a story about a fox. Every sentence must end with a question mark."),
        body("Explain why the sky is blue."),
        {**body("What's the weather in Oslo?"), "tools": [tool]},
        {"messages": [{"role": "user", "content": ""}]},
    ]
    expected = [classify(b) for b in bodies]
    monkeypatch.setattr(constraint, "sentences", counted)
    for b, intent in zip(bodies, expected, strict=True):
        scans.clear()
        info = explain(b)
        assert (info["intent"], info["confidence"], info["source"]) == (
            intent.label,
            intent.confidence,
            intent.source,
        )
        assert len(scans) == (1 if b["messages"][-1]["content"] else 0)


def test_the_terminal_explanation_names_the_constraint_sentence() -> None:
    text = "Explain why the sky is blue. Put the whole thing in lowercase."
    result = CliRunner().invoke(app, ["show", text])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("instruction")
    assert "constraint sentence" in result.output
    assert "Put the whole thing in lowercase." in result.output


def test_the_terminal_explanation_says_when_the_sentence_is_an_answer_directive() -> None:
    text = "Is 91 a prime number? Respond with a single number and nothing more."
    result = CliRunner().invoke(app, ["show", text])
    assert result.exit_code == 0, result.output
    assert "an answer directive" in result.output
    plain = CliRunner().invoke(app, ["show", "Explain why the sky is blue. Use all lowercase."])
    assert "constraint sentence" in plain.output and "answer directive" not in plain.output


DETECTOR_DIGEST = """
import hashlib, sys
sys.path.insert(0, ".")
from classifier import corpus
from classifier.train import TrainConfig, fit_detector
rows = corpus.load("train")[::40]
detector = fit_detector(corpus.load_sentences()[::4], rows, TrainConfig(detector_negatives=200))
probe = "Write a story. Every line must rhyme and no word may repeat."
print(hashlib.sha256(detector.weights.tobytes()).hexdigest(), repr(detector.probability(probe)))
"""


def test_the_detector_trains_and_scores_the_same_whatever_the_hash_seed() -> None:
    """String hashing is randomised per process; training and scoring must not depend on it."""
    outputs = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-c", DETECTOR_DIGEST],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=Path(__file__).resolve().parents[2],
            check=True,
            timeout=120,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
