"""Message shapes and bounds: what the classifier reads from a request, and how much."""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier import INTENTS, classify, decision, explain
from classifier.ask_text import content_text
from classifier.clip import HEAD_BYTES, TAIL_BYTES, clip
from classifier.corpus import Example
from classifier.evaluation import body as body_of
from classifier.features import HEAD_TOKENS, TAIL_TOKENS, features, text_features, tokens
from classifier.message import SCAN_ROLES
from classifier.request import SYSTEM_CHARS, view
from classifier.toolset import TOOL_CHARS
from classifier.train import fit
from tests.harness import VENV_BIN, breaks_on_call


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
    bound = HEAD_BYTES + TAIL_BYTES + 3
    assert len(v.latest) <= bound and len(v.first) <= bound
    feats = features(v)
    assert len(feats) < 2 * (HEAD_TOKENS + TAIL_TOKENS) + 50


def _tool_rounds(n: int) -> list[dict[str, Any]]:
    """`n` rounds of an agent's tool loop: a call, then its result."""
    out: list[dict[str, Any]] = []
    for k in range(n):
        call = {"id": str(k), "type": "function", "function": {"name": "sh", "arguments": "{}"}}
        out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        out.append({"role": "tool", "tool_call_id": str(k), "content": "ok"})
    return out


@pytest.mark.parametrize("rounds", [33, 500, SCAN_ROLES // 2 - 2])
def test_the_latest_user_message_is_found_behind_a_long_tool_loop(rounds: int) -> None:
    """Only the last 64 messages were searched for it: after 32 tool rounds the ask was out
    of reach and the first message decided, so a request for a Python script read prose
    because the conversation began with a sonnet (found in review)."""
    ask = "now write a python script that renames all .txt files in a folder"
    messages = [
        {"role": "user", "content": "write a sonnet about the sea"},
        {"role": "assistant", "content": "Here it is..."},
        {"role": "user", "content": ask},
        *_tool_rounds(rounds),
    ]
    request = {"messages": messages, "tools": [{"type": "function", "function": {"name": "sh"}}]}
    why = explain(request)
    assert why["read"]["latest_chars"] == len(ask)
    assert why["intent"] == classify(request).label == "coding"


def test_the_search_for_the_latest_user_message_is_bounded() -> None:
    """Past `SCAN_ROLES` messages of anything else the search stops, and the first user
    message is read alone, as it was past 64."""
    first = {"role": "user", "content": "write a sonnet about the sea"}
    far = view({"messages": [first, *_tool_rounds(SCAN_ROLES // 2)]})
    assert (far.latest, far.first) == ("", "write a sonnet about the sea")
    near = view({"messages": [first, *_tool_rounds(SCAN_ROLES // 2 - 1)]})
    assert near.latest == "write a sonnet about the sea"


def test_the_first_message_and_the_system_prompt_are_read_to_their_head_once() -> None:
    """A first message or system prompt reads its first 60 or 30 tokens. It read the head
    twice and then every token of the next 960 or 480 characters: a first message of 100
    words counted "poem" 160 times (found in review)."""
    v = view(
        {
            "messages": [
                {"role": "system", "content": "poem " * 100},
                {"role": "user", "content": "poem " * 100},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "thanks"},
            ]
        }
    )
    only_latest = features(view(body_of("thanks")))
    poem = features(v)["m:poem"] - only_latest.get("m:poem", 0.0)
    assert poem == pytest.approx(0.5 * 60**0.5 + 0.15 * 30**0.5)


_TOOL = st.fixed_dictionaries(
    {
        "name": st.integers(0, 64).map(lambda n: "n" * n),
        "description": st.integers(0, 300).map(lambda n: "d" * n),
    }
).map(lambda fn: {"type": "function", "function": fn})


@given(st.lists(_TOOL, max_size=24))
def test_tool_names_are_the_first_chars_of_the_scanned_names(
    tools: list[dict[str, Any]],
) -> None:
    """The read stops once the bound is reached; what it keeps is what a full read keeps.
    Names only: descriptions were read too, and their everyday words named the tools for
    the rule (`test_classifier_rules`)."""
    pieces = [t["function"]["name"][:200] for t in tools[:16]]
    assert view({"messages": [], "tools": tools}).tool_names == " ".join(pieces)[:TOOL_CHARS]


def test_a_long_message_in_parts_is_read_as_the_same_message_in_one_string() -> None:
    """Each part was cut to its head and the read stopped at 4,000 characters, so the ask at
    the end of a long message sent as parts was lost and the route changed (found in
    review)."""
    doc = "The quarterly meeting covered budgets, hiring and the new office lease. " * 30
    ask = "Write a Python function that parses this text and counts the words in each sentence."
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    for texts in ([doc + doc + ask], [doc, doc, ask], [doc, ask], ["hi", doc + doc, ask]):
        parts = [image, *({"type": "text", "text": t} for t in texts)]
        as_parts = {"messages": [{"role": "user", "content": parts}]}
        as_string = body_of("\n".join(texts))
        assert view(as_parts).latest == view(as_string).latest
        assert ask in view(as_parts).latest
        assert classify(as_parts) == classify(as_string)


@given(
    st.lists(
        st.integers(0, 2_500).map(lambda n: "x" * (n % 7) + "写y"[n % 2] * n + "é" * (n % 3)),
        max_size=16,
    )
)
def test_parts_are_clipped_as_their_joined_text(texts: list[str]) -> None:
    parts = [{"type": "text", "text": t} for t in texts]
    assert content_text(parts) == content_text("\n".join(t for t in texts if t))


CHINESE = "请帮我写一篇关于人工智能在医疗领域应用的文章，每个部分至少三段。"


def test_cjk_text_is_read_to_as_many_bytes_as_english() -> None:
    """Counted in characters, 2,000 Chinese characters were read where English gives ~400
    tokens: ~2,000 tokens, and 0.69 ms p50 to classify a long Chinese message."""
    ask = "最后，请用不超过一百字总结全文。"
    long_chinese = CHINESE * 100 + ask
    english = "Please write an article on AI in medicine, three paragraphs each. " * 60
    read = view(body_of(long_chinese)).latest
    assert len(read.encode()) <= HEAD_BYTES + TAIL_BYTES + len("\n…\n".encode())
    assert long_chinese.startswith(read.partition("\n…\n")[0])
    assert ask in read and long_chinese.endswith(read.rpartition("\n…\n")[2])
    assert "\ufffd" not in read  # no character cut in two
    assert len(tokens(read)) < 2 * len(tokens(view(body_of(english)).latest))
    as_before = f"{english[:1500]}\n…\n{english[-500:]}"  # ASCII: characters are bytes
    assert view(body_of(english)).latest == clip(english) == as_before


@given(st.text(st.sampled_from("ab写é\U0001f600\ud800 "), min_size=600, max_size=2_600))
def test_a_clip_is_a_head_and_a_tail_within_the_bytes(text: str) -> None:
    read = clip(text)
    if read == text:
        assert len(text.encode(errors="surrogatepass")) <= HEAD_BYTES + TAIL_BYTES
        return
    head, _, tail = read.partition("\n…\n")
    assert len(head.encode(errors="surrogatepass")) <= HEAD_BYTES
    assert len(tail.encode(errors="surrogatepass")) <= TAIL_BYTES
    assert len(head.encode(errors="surrogatepass")) > HEAD_BYTES - 4  # at most a character short
    assert len(tail.encode(errors="surrogatepass")) > TAIL_BYTES - 4
    assert text.startswith(head) and text.endswith(tail)


def test_training_reads_a_row_as_a_request_is_read() -> None:
    """The stored rows were clipped in characters; a long Chinese row read whole at training
    would teach the model from text no request shows it."""
    rows = [
        Example(CHINESE * 100, "writing", "t"),
        Example("Write a haiku about snow", "prose", "t"),
        Example("Solve 3x + 5 = 20", "math", "t"),
    ]
    seen: list[str] = []

    def featurize(text: str) -> dict[str, float]:
        seen.append(text)
        return text_features(text)

    fit(rows, featurize=featurize)
    assert seen == [clip(r.text) for r in rows]
    assert len(seen[0].encode()) < len(rows[0].text.encode()) / 2


def test_tokens_split_cjk_into_characters_and_fold_numbers() -> None:
    assert tokens("Write 3 poems: 写一首诗") == ["write", "0", "poems", "写", "一", "首", "诗"]


SPLIT = bytes.maketrans(string.punctuation.encode(), b" " * len(string.punctuation))
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def reference_tokens(text: str) -> list[str]:
    """`tokens` as first written, one regex match per CJK character: the faster passes that
    replaced it (found slow in review) must give the same tokens."""
    out: list[str] = []
    for chunk in text.lower().encode(errors="replace").translate(SPLIT).decode().split():
        if chunk.isascii():
            out.append("0" if chunk[0].isdigit() else chunk)
        else:
            for piece in re.findall(r"[^\W_]+", chunk):
                out.extend(_CJK.findall(piece) if _CJK.match(piece) else (piece,))
    return out


CJK_MIX = "中文字。！？，、「」・゠゛ー한국어ひらがなカタカナ😀éΣ1a \u3000\n"


@given(st.text(alphabet=CJK_MIX, max_size=300))
def test_cjk_text_gives_the_tokens_it_always_gave(text: str) -> None:
    assert tokens(text) == reference_tokens(text)


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
    assert intent.label in (*INTENTS, "unknown")
    assert 0.0 <= intent.confidence <= 1.0
    if isinstance(body, dict):
        json.dumps(explain(body))


def test_an_odd_part_or_lone_surrogate_costs_only_itself() -> None:
    """A part whose `type` was a list or dict made the whole request unreadable (confidence
    0), and a lone surrogate (undecodable argv) made `explain` raise (found in review)."""
    ask = "Write a Python function that reverses a linked list"
    plain = classify(body_of(ask))
    assert plain.label == "coding"
    for odd in ({"type": ["text"], "text": "x"}, {"type": {"a": 1}}, {"type": "text", "text": 3}):
        request = {"messages": [{"role": "user", "content": [odd, {"type": "text", "text": ask}]}]}
        assert classify(request) == plain
        assert explain(request)["intent"] == "coding"
    for text in (f"{ask} \ud800", f"{ask} \udcff\udcfe"):
        assert classify(body_of(text)).label == "coding"
        assert explain(body_of(text))["confidence"] > 0.5
    assert tokens("ab\ud800cd") == ["ab", "cd"]


def test_classify_cli_reads_an_argument_that_is_not_utf8() -> None:
    """`smf-router classify $'Write a python function \\xff\\xfe'` printed a traceback
    (found in review): the bytes reached the tokeniser, then a UTF-8 terminal, as lone
    surrogates."""
    text = "Write a poem about rain. Your entire response must be in lowercase letters \xff."
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "classify", text.encode("latin-1")],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},  # as a UTF-8 terminal is
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert "letters \ufffd." in done.stdout.decode()  # the constraint sentence, shown


def test_explain_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """Like `classify`, whatever goes wrong inside: a body it cannot read is explained as
    unread (the default route), not a 500 from /v1/router/explain."""
    monkeypatch.setattr(decision, "rule_intent", breaks_on_call(1, decision.rule_intent))
    unread = explain(body_of("Write a haiku"))
    assert (unread["confidence"], unread["read"]["latest_chars"]) == (0.0, 0)
    assert explain(body_of("Write a haiku"))["confidence"] > 0.5  # the next call is read


def test_missing_messages_gives_zero_confidence() -> None:
    assert classify({}).confidence == 0.0
    assert classify({"messages": "garbage"}).confidence == 0.0


@pytest.mark.parametrize("text", ["", "   ", "\n\t \u3000"])
def test_a_prompt_of_whitespace_only_takes_the_default_route(text: str) -> None:
    """`classify "   "` was read by the model (confidence 0.27) while `""` took the default
    route (found in review): neither has anything to read."""
    assert classify(body_of(text)).source == "default"
    assert explain(body_of(text))["source"] == "default"
    with_system = {
        "messages": [{"role": "system", "content": " "}, {"role": "user", "content": text}]
    }
    assert classify(with_system).source == "default"


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


def test_explain_says_which_message_was_read_only_in_part() -> None:
    """`latest_chars` counts what was read, the cut's separator included: nothing said that
    a long message was read only to its head and tail."""
    long, short = "Fix the parser. " + "x = 1\n" * 400, "Fix the parser."
    cut = explain(
        {"messages": [{"role": "user", "content": short}, {"role": "user", "content": long}]}
    )
    assert (cut["read"]["latest_cut"], cut["read"]["first_cut"]) == (True, False)
    whole = explain(
        {"messages": [{"role": "user", "content": long}, {"role": "user", "content": short}]}
    )
    assert (whole["read"]["latest_cut"], whole["read"]["first_cut"]) == (False, True)
    chinese = "修复这个解析器。" * 100  # 800 characters, 2,400 bytes: over the bound in bytes
    assert explain({"messages": [{"role": "user", "content": chinese}]})["read"]["latest_cut"]
    parts = [{"type": "text", "text": f"part {i}"} for i in range(20)]
    assert explain({"messages": [{"role": "user", "content": parts}]})["read"]["latest_cut"]
    images = [{"type": "image_url", "image_url": {"url": "data:,"}}] * 18
    few = [{"type": "text", "text": "describe"}, *images, {"type": "text", "text": "these"}]
    assert not explain({"messages": [{"role": "user", "content": few}]})["read"]["latest_cut"]
    assert not explain({"messages": [{"role": "user", "content": short}]})["read"]["latest_cut"]
