"""Agno's texts, on the classifier's view alone (`classifier.agno`): the blocks it appends to
a user's message, and its session summary's request. The captured bodies go through the
router in `tests/agent_apis/test_agent_agno.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.agno import (
    CONTEXT,
    CONTEXT_END,
    REFERENCES,
    REFERENCES_END,
    SUMMARY_ASK,
    SUMMARY_SYSTEM,
)
from classifier.request import view
from router.conversation import conversation_key

FIXTURES = Path(__file__).parents[1] / "fixtures" / "agno-3.1.10"
WEATHER = "What is the weather in Paris?"
# Documents as `convert_documents_to_string` writes them (agno 3.1.10,
# `agno/agent/_utils.py`: `json.dumps(docs, indent=2, ensure_ascii=False)`), between the
# texts `get_user_message` adds (`agno/agent/_messages.py`), as `REFERENCES` ...
# `REFERENCES_END` hold them
DOCS = json.dumps([{"content": "Paris is the capital of France.", "name": "cities"}], indent=2)
REFERENCED = f"{WEATHER}{REFERENCES}{DOCS}{REFERENCES_END}"


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


def test_agnos_texts_are_the_ones_it_sends() -> None:
    """The texts `classifier.agno` matches, found in the bodies Agno 3.1.10 sent: the
    dependencies' block (`agno/agent/_messages.py`), the session summary's prompt and ask
    (`agno/session/summary.py`)."""
    ask = captured("dependencies.json")["messages"][0]["content"]
    assert ask.startswith(WEATHER + CONTEXT) and ask.endswith(CONTEXT_END)
    summary = captured("session-summary.json")["messages"]
    assert summary[0]["content"].startswith(SUMMARY_SYSTEM)
    assert summary[1] == {"role": "user", "content": SUMMARY_ASK}


@pytest.mark.parametrize(
    "ask",
    [
        REFERENCED,
        f'{REFERENCED}{CONTEXT}{{\n  "today": "2026-12-06"\n}}{CONTEXT_END}',
    ],
)
def test_the_blocks_agno_appends_are_no_words_of_the_users(ask: str) -> None:
    """The knowledge base's references and the dependencies, in the order Agno appends
    them: cut, the ask before them read, in the first ask and the latest alike."""
    seen = view(chat(("user", ask), ("assistant", "Sunny."), ("user", ask)))
    assert (seen.latest, seen.first, seen.harness_cut) == (WEATHER, WEATHER, False)
    seen = view(chat(("user", ask), ("assistant", "Sunny."), ("user", "And tomorrow?")))
    assert (seen.latest, seen.first) == ("And tomorrow?", WEATHER)


def test_the_dependencies_agno_sent_are_cut() -> None:
    body = captured("dependencies.json")
    assert view(body).latest == WEATHER
    alone = chat(("user", WEATHER))
    assert conversation_key(body, {}, "c") == conversation_key(alone, {}, "c")


@pytest.mark.parametrize(
    "ask",
    [
        # a block that does not end the message, or an opening without its blank line
        f"{REFERENCED}\nThanks!",
        REFERENCED.replace(REFERENCES, REFERENCES[2:]),
        f"{WEATHER}{CONTEXT}{{}}",
    ],
)
def test_a_block_not_as_agno_appends_it_is_read_as_written(ask: str) -> None:
    assert view(chat(("user", ask))).latest == ask


def test_the_session_summarys_ask_is_no_ask() -> None:
    """Agno's sentence, not the session's work: the request asks nothing of a user's and
    takes the default route, as opencode's compaction request does."""
    body = captured("session-summary.json")
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == ("", "", False)
    assert classify(body).source == "default"


@pytest.mark.parametrize(
    "messages",
    [
        # the sentence typed in a chat, after another system prompt, or not alone after it
        [("user", SUMMARY_ASK)],
        [("system", "You are a helpful assistant."), ("user", SUMMARY_ASK)],
        [
            ("system", SUMMARY_SYSTEM + "<conversation></conversation>"),
            ("user", SUMMARY_ASK),
            ("assistant", "Done."),
            ("user", SUMMARY_ASK),
        ],
    ],
)
def test_the_summary_sentence_elsewhere_is_read_as_written(
    messages: list[tuple[str, str]],
) -> None:
    assert view(chat(*messages)).latest == SUMMARY_ASK
