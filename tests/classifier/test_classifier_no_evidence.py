"""A request the model reads nothing in: no text, or text with no word it learnt. It gets
the no-evidence answer (intent `unknown`, confidence 0, source `default`), which every
consumer reports as such instead of as one of the seven intents."""

from __future__ import annotations

from pathlib import Path

import pytest

from classifier import INTENTS, classify, explain
from classifier.corpus import Example
from classifier.decision import UNKNOWN
from classifier.evaluation import body, evaluate
from classifier.intent import UNREAD, Intent
from router.config import parse
from router.metric_labels import intent_label
from router.record import Record
from router.shadow_report import PairSummary, advice
from router.shadow_sampling import rate_for

IMAGE_ONLY = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}


@pytest.mark.parametrize(
    "text", ["asdf", "qwzx", "Danke", "ffmpeg", "Tschüss", "спасибо", "نعم", "?", "??", "..."]
)
def test_a_request_with_no_word_the_model_knows_is_no_evidence(text: str) -> None:
    """Each of these has one known feature at most, a shape cue (`f:asks`, `f:len3`) or the
    detector's `c:constraint` (0.08), and L2 normalisation lifted it to full weight:
    "asdf" read instruction 0.99, "?" reasoning 0.99, "спасибо" tool_calling 0.58, all
    above `min_confidence` 0.35 (found in review)."""
    assert classify(body(text)) == UNKNOWN
    why = explain(body(text))  # the named path decides the same
    assert (why["intent"], why["confidence"], why["source"]) == (UNREAD, 0.0, "default")


@pytest.mark.parametrize("text", ["fix it", "thanks!", "yes", "continue", "why?", "3"])
def test_a_short_prompt_of_known_words_is_still_read_by_the_model(text: str) -> None:
    """A word or number the model learnt is evidence, however short the prompt. ("3" stays
    math: numbers are the `0` word, and bare arithmetic such as "12*7" is read by it. "hi"
    asks nothing: a greeting alone, `tests/classifier/test_classifier_greeting.py`.)"""
    intent = classify(body(text))
    assert intent.source == "model" and intent.label in INTENTS
    assert explain(body(text))["intent"] == intent.label


def test_the_docs_short_probes_keep_their_low_confidence() -> None:
    """docs/classifier.md's "very short" probes: any label, confidence below 0.6."""
    assert classify(body("fix it")).confidence < 0.6
    assert classify(body("thanks!")).confidence < 0.6


def test_an_unknown_word_in_a_conversation_with_known_context_is_read() -> None:
    """Only a request with no known word anywhere it is read (latest, first, system) is no
    evidence: "asdf" after a first message asking for code is still that conversation."""
    request = {
        "messages": [
            {"role": "user", "content": "Write a Python function that parses a CSV file"},
            {"role": "assistant", "content": "def parse(path): ..."},
            {"role": "user", "content": "asdf"},
        ]
    }
    assert classify(request).source == "model"
    assert explain(request)["source"] == "model"


def test_a_request_with_no_text_is_reported_unknown_not_as_an_intent() -> None:
    """An image-only request took the default route but was reported `writing` in
    x-smf-intent, the ledger and the metrics (found in review)."""
    intent = classify(IMAGE_ONLY)
    assert intent == Intent("unknown", 0.0, "default")
    assert intent.label not in INTENTS
    assert explain(IMAGE_ONLY)["intent"] == "unknown"


@pytest.mark.parametrize("system", ["You are helpful", "You are a helpful assistant."])
def test_a_persona_without_a_user_message_is_no_task(system: str) -> None:
    """The system prompt is a weak signal (weight 0.15), but alone it was normalised to full
    weight and decided by its length bucket: "You are helpful" read tool_calling 0.73
    (`f:len4`), "You are a helpful assistant." prose 0.65 (found in review). A system prompt
    that only says who the model is asks nothing (`classifier.system_ask.persona_only`): the
    default route, like a lone tool result."""
    lone = {"messages": [{"role": "system", "content": system}]}
    assert classify(lone) == UNKNOWN
    assert explain(lone)["source"] == "default"
    asked = {"messages": [*lone["messages"], {"role": "user", "content": "Fix this bug"}]}
    assert classify(asked).source == "model"  # the same system prompt beside a task is read


def test_a_task_without_a_user_message_is_the_ask() -> None:
    """A request of system messages alone asks by them (BAML's default prompt,
    `classifier.system_ask`): "Write a poem about the sea." is read as sent by a user."""
    lone = {"messages": [{"role": "system", "content": "Write a poem about the sea."}]}
    user = {"messages": [{"role": "user", "content": "Write a poem about the sea."}]}
    assert classify(lone) == classify(user)
    assert classify(lone).source == "model"


def test_the_metrics_count_unknown_under_its_own_label() -> None:
    """The label set had no room for it: `unknown` would have shown as `other`."""
    assert intent_label(classify(IMAGE_ONLY).label) == "unknown"
    assert intent_label("nonsense") == "other"


def test_a_request_read_as_nothing_is_not_shadowed_at_an_intents_rate() -> None:
    """With `shadow.rates: {writing: 1}` an image-only request was mirrored as writing."""
    config = parse(
        {
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "m",
                },
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "m",
                },
            ],
            "shadow": {"rates": dict.fromkeys(INTENTS, 1.0)},
        }
    )
    record = Record("r", 0.0, intent=classify(IMAGE_ONLY).label, route="coding")
    assert rate_for(record, config) == 0.0


def test_the_shadow_report_gives_no_routing_advice_for_unknown() -> None:
    """Advice such as "consider routing unknown to local first" names a route no setting
    can make: such requests take the default route."""
    summary = PairSummary(
        UNREAD, "cloud", "local", 40, 40, 0, 0, 1.0, 0.95, 1.0, None, None, 0.0, 0.0, 0.0
    )
    said = advice(summary, {"cloud": "cloud", "local": "local"})
    assert said.startswith("no advice: the classifier read nothing"), said


def test_evaluation_counts_an_unknown_prediction_in_its_own_column(tmp_path: Path) -> None:
    """The confusion matrix had a column per intent only: a held-out row read as nothing
    raised KeyError and stopped `classifier train` after fitting."""
    rows = [Example("asdf", "writing", "t"), Example("Write a haiku about rain", "prose", "t")]
    report = evaluate(rows, classify)
    assert report.confusion["writing"]["unknown"] == 1
    assert report.confusion["prose"]["prose"] == 1
