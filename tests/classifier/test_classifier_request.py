"""Message shapes and bounds: what the classifier reads from a request, and how much."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from classifier import INTENTS, classify, explain
from classifier.features import HEAD_TOKENS, TAIL_TOKENS, features, text_features, tokens
from classifier.request import HEAD_CHARS, SYSTEM_CHARS, TAIL_CHARS, TOOL_CHARS, view


def test_content_part_arrays_are_read_and_images_ignored() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "text", "text": "Write a limerick about this cat"},
                ],
            }
        ]
    }
    v = view(body)
    assert v.latest == "Write a limerick about this cat"
    assert classify(body).label == "prose"


def test_latest_and_first_user_messages_are_read_system_is_clipped() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "S" * 10_000},
            {"role": "user", "content": "first ask"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "latest ask"},
        ]
    }
    v = view(body)
    assert (v.first, v.latest) == ("first ask", "latest ask")
    assert len(v.system) == SYSTEM_CHARS


def test_a_huge_conversation_is_read_in_bounded_pieces() -> None:
    turn = {"role": "user", "content": "word " * 50_000}
    body = {"messages": [turn, {"role": "assistant", "content": "x" * 100_000}] * 200}
    v = view(body)
    bound = HEAD_CHARS + TAIL_CHARS + 3
    assert len(v.latest) <= bound and len(v.first) <= bound
    feats = features(v)
    assert len(feats) < 2 * (HEAD_TOKENS + TAIL_TOKENS) + 50


_TOOL = st.fixed_dictionaries(
    {
        "name": st.integers(0, 40).map(lambda n: "n" * n),
        "description": st.integers(0, 300).map(lambda n: "d" * n),
    }
).map(lambda fn: {"type": "function", "function": fn})


@given(st.lists(_TOOL, max_size=24))
def test_tool_text_is_the_first_chars_of_the_scanned_names_and_descriptions(
    tools: list[dict[str, Any]],
) -> None:
    """The read stops once the bound is reached; what it keeps is what a full read keeps."""
    pieces = [t["function"][k][:200] for t in tools[:16] for k in ("name", "description")]
    assert view({"messages": [], "tools": tools}).tool_text == " ".join(pieces)[:TOOL_CHARS]


def test_tokens_split_cjk_into_characters_and_fold_numbers() -> None:
    assert tokens("Write 3 poems: 写一首诗") == ["write", "0", "poems", "写", "一", "首", "诗"]


def test_responses_api_input_string_is_read() -> None:
    assert view({"input": "Solve 2x + 3 = 7"}).latest == "Solve 2x + 3 = 7"


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "messages",
                        "role",
                        "content",
                        "tools",
                        "tool_choice",
                        "type",
                        "text",
                        "function",
                        "name",
                        "input",
                    ]
                ),
                inner,
                max_size=4,
            )
        ),
        max_leaves=20,
    )
)
@settings(max_examples=200, deadline=None)
def test_any_body_shape_gives_an_intent_and_never_raises(body: Any) -> None:
    intent = classify(body)
    assert intent.label in INTENTS
    assert 0.0 <= intent.confidence <= 1.0
    if isinstance(body, dict):
        json.dumps(explain(body))


def test_missing_messages_gives_zero_confidence() -> None:
    assert classify({}).confidence == 0.0
    assert classify({"messages": "garbage"}).confidence == 0.0


def test_meaning_cues_name_literary_forms_and_answer_directives_in_any_case_or_language() -> None:
    def cues(text: str) -> set[str]:
        return {f for f in text_features(text) if f.startswith("m:")}

    for text in (
        "Write a SONNET about rain",
        "Escribe un soneto",
        "Ein Akrostichon",
        "写一首藏头诗",
    ):
        assert "m:literary_form" in cues(text), text
    assert "m:literary_form" not in cues("Write a poem about rain")  # a poem, not a named form
    for text in ("Put the result in \\boxed{}.", "Reply with ONLY THE LETTER.", "Final answer:"):
        assert "m:answer" in cues(text), text
    assert "m:answer" not in cues("Answer the question in three paragraphs.")
