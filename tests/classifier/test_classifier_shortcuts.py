"""The hot path's search shortcuts find exactly what the plain searches find: CJK concept
words looked for only when their first character occurs, hints and phrases only when their
rarest character does (`classifier/features.py`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier import features
from classifier.lexicon import CJK

CJK_WORDS = sorted({w for words in CJK.values() for w in words})
CJK_CHARS = sorted(set("".join(CJK_WORDS)))  # a word's characters, apart or out of order
NEEDLES = (
    *features._CODE_HINTS,
    *features._TRACE_HINTS,
    *features._COUNT_HINTS,
    *features._ANSWER_PHRASES,
    *features._FORMAT_PHRASES,
)
TEXTS = [
    "",
    "写一首关于春天的诗，每行五个字。请用JSON格式输出，不要超过五十字以内。",
    "なぜ空は青いのですか？キャラクターの物語を書いてください。",
    "def f(x):\n    return x => y; </div> #include Traceback Error: panic: error[E0308]",
    "Answer with exactly three words. Your response must be in all lowercase. \\boxed{4}",
]


def plain_concepts(text: str) -> set[str]:
    return {concept for concept, words in CJK.items() if any(w in text for w in words)}


@pytest.mark.parametrize("text", TEXTS)
def test_cjk_concepts_are_the_plain_search(text: str) -> None:
    assert features._cjk_concepts(text) == plain_concepts(text)


@given(st.lists(st.sampled_from([*CJK_WORDS, *CJK_CHARS, *"的是了。，ab "]), max_size=60))
@settings(max_examples=300, deadline=None)
def test_cjk_concepts_are_the_plain_search_on_any_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert features._cjk_concepts(text) == plain_concepts(text)


@pytest.mark.parametrize("text", TEXTS)
def test_keyed_needles_count_as_the_plain_search(text: str) -> None:
    for low in (text, text.lower()):
        assert features._present(low, features._keyed(NEEDLES)) == sum(n in low for n in NEEDLES)


@given(st.lists(st.sampled_from([*NEEDLES, *"abcdefxyz `(=<#:[\\\n\t.TE"]), max_size=40))
@settings(max_examples=300, deadline=None)
def test_keyed_needles_count_as_the_plain_search_on_any_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert features._present(text, features._keyed(NEEDLES)) == sum(n in text for n in NEEDLES)
