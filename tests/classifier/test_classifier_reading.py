"""The latest message tokenised once (`classifier.reading`) gives exactly what the features'
and the detector's own passes give, and takes one pass when it can."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier import constraint, features, reading
from classifier.constraint import each_sentence_tokens, sentences
from classifier.features import tokens

TEXTS = [
    "",
    " ",
    "\n\n\t \u3000\n",
    "Write a poem about rain. Use exactly four lines!\nNo rhymes? None at all.",
    "请帮我写一篇关于人工智能的文章。每个部分至少三段！你能做到吗？好的。",
    "日本語の文章です。各行は五文字以内にしてください。ありがとう！",
    "def add(a, b):\n    return a + b\n\n# tests\nassert add(1, 2) == 3. Done!",
    "Mix 中文 and English。Python 3.11 is here！ok？yes。2024年。abc",
    "写一首诗。1. 第一行\n2. 第二行。3abc and 。Abc。\x01x。K\x02",
    "- a\n- b\n\n* c\n" * 30 + "Each line must rhyme. " * 50,
    "ΑΣ. Β ends ΑΣ。Β with sigma, word ΑΣ\nΒγ starts",
    "bad \ud800 byte. next \x1c part\x85 end\r\nCRLF line。\u2028sep\u2029para",
    "NUL \x00 here. and more. 中文。1abc",
]
# the characters where a sentence cut could change a token, and ordinary ones around them
TRICKY = "ab Z9 0。！？.!?\n\r\x1c\x85\u3000写中한_-Σ\u212a\u0130\x01\x7f\x00\ud800é😀,"


def separately(text: str) -> reading.Reading:
    """What the features and the detector read with a pass each."""
    parts = sentences(text)
    return reading.Reading(tokens(text), parts, each_sentence_tokens(parts))


@pytest.mark.parametrize("text", TEXTS)
def test_one_reading_equals_the_two_passes(text: str) -> None:
    assert reading.read(text) == separately(text)


@given(st.text(alphabet=TRICKY, max_size=400))
@settings(max_examples=1000, deadline=None)
def test_one_reading_equals_the_two_passes_on_any_text(text: str) -> None:
    assert reading.read(text) == separately(text)


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("Write a poem. Every line must rhyme!\n\nThanks. " * 20, 1),
        ("请写一首诗，每行五个字。我们今天去公园散步。" * 20, 1),
        ("写一首诗。2. 每行五个字。", 2),  # a digit right after a CJK stop
        ("NUL \x00 here. Two sentences.", 3),  # a NUL: a pass for each sentence
    ],
)
def test_a_message_is_tokenised_once_unless_a_cut_could_change_a_token(
    text: str, passes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def counted(text: str) -> list[str]:
        calls.append(text)
        return tokens(text)

    expected = separately(text)
    monkeypatch.setattr(features, "tokens", counted)
    monkeypatch.setattr(constraint, "tokens", counted)
    assert reading.read(text) == expected
    assert len(calls) == passes


def test_sentences_past_the_bound_and_short_lines_add_few_marks() -> None:
    """Lines the detector does not read are tokenised together, not one mark each."""
    text = "x\n" * 500 + "One sentence here.\n" * 60 + "y\n" * 500
    segments, kept = reading._segments(text.splitlines())
    assert len(kept) == 40 and len(segments) == 42
    assert reading.read(text) == separately(text)
