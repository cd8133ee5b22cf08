"""Haystack's retrieval side calls, on the classifier's view and the conversation key alone
(`classifier.haystack`): the query inside its ranker's and its query expander's prompts. The
captured bodies go through the router in `tests/agent_apis/test_agent_haystack.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.clip import clip
from classifier.haystack import EXPANDER_END, EXPANDER_OPENING, RANKER_DOCUMENTS, RANKER_OPENING
from classifier.message import one_text
from classifier.request import view
from router.conversation import conversation_key
from router.translate.view import chat_view

FIXTURES = Path(__file__).parents[1] / "fixtures" / "haystack-ai-3.4.1"
QUERIES = {
    "code": "Fix the bug in the add function in utils.py",
    "sky": "Why is the sky blue?",
    "math": "Compute 17 * 23",
    "haiku": "Write a haiku about autumn leaves",
}
SIDE_CALLS = [(kind, name) for kind in ("ranker", "expander") for name in QUERIES]


def captured(name: str) -> dict[str, Any]:
    """The body as the router reads it: a Responses body in its chat view."""
    body = dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
    return chat_view("responses", body) if "input" in body else body


def prompt(kind: str, name: str = "sky") -> str:
    """The one text of the side call's one message (a text part over the Responses API)."""
    (message,) = captured(f"{kind}-{name}.json")["messages"]
    text = one_text(message)
    assert text is not None
    return text


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


def test_haystacks_texts_are_the_ones_it_sends() -> None:
    """The texts `classifier.haystack` matches, found in the bodies Haystack 3.4.1 sent
    (`llm_ranker.py`, `query_expander.py`), over chat completions and the Responses API."""
    for api in ("sky", "responses"):
        ranker = prompt("ranker", api)
        assert ranker.startswith(RANKER_OPENING + QUERIES["sky"] + RANKER_DOCUMENTS)
        expander = prompt("expander", api)
        opening = EXPANDER_OPENING.match(expander)
        assert opening is not None and expander[opening.end() :].startswith(QUERIES["sky"] + '"')
        assert EXPANDER_END.search(expander) is not None


@pytest.mark.parametrize(
    ("kind", "name"), [*SIDE_CALLS, ("ranker", "responses"), ("expander", "responses")]
)
def test_a_side_call_is_read_by_its_query(kind: str, name: str) -> None:
    """The ranker was coding 0.81-0.92 for any query, the expander instruction 0.30-0.54:
    each is read as its query and decided as the query alone is."""
    query = QUERIES.get(name, QUERIES["sky"])
    body = captured(f"{kind}-{name}.json")
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == (query, "", False)
    alone = classify(chat(("user", query)))
    assert (classify(body).label, classify(body).confidence) == (alone.label, alone.confidence)


@pytest.mark.parametrize("name", QUERIES)
def test_a_querys_side_calls_are_one_conversation(name: str) -> None:
    """Its ranking and its expansion one key, over either API; another query's another, and a
    chat asking the query another still."""
    keys = {
        conversation_key(captured(f"{kind}-{name}.json"), {}, "c")
        for kind in ("ranker", "expander")
    }
    if name == "sky":
        keys |= {
            conversation_key(captured(f"{kind}-responses.json"), {}, "c")
            for kind in ("ranker", "expander")
        }
    assert len(keys) == 1
    assert keys.pop() != conversation_key(chat(("user", QUERIES[name])), {}, "c")
    others = {conversation_key(captured(f"ranker-{other}.json"), {}, "c") for other in QUERIES}
    assert len(others) == len(QUERIES)


@pytest.mark.parametrize(
    "messages",
    [
        # a prompt after a conversation, with words after it, without documents, with a
        # count that is no number
        [("user", "Hello"), ("assistant", "Hi."), ("user", prompt("ranker"))],
        [("user", prompt("expander") + "\nThanks!")],
        [("user", prompt("ranker").split(RANKER_DOCUMENTS)[0] + "\n\nDocuments:\n")],
        [("user", prompt("expander").replace("exactly 3 expanded", "exactly three expanded"))],
        [("user", prompt("ranker")), ("assistant", "{}"), ("user", "And now?")],
    ],
)
def test_haystacks_prompts_elsewhere_are_read_as_written(messages: list[tuple[str, str]]) -> None:
    body = chat(*messages)
    assert view(body).latest == clip(messages[-1][1])
    assert conversation_key(body, {}, "c") != conversation_key(captured("ranker-sky.json"), {}, "c")


@pytest.mark.parametrize("kind", ["ranker", "expander"])
def test_a_side_call_after_a_system_prompt_is_read_by_its_query(kind: str) -> None:
    body = chat(("system", "You are a retrieval assistant."), ("user", prompt(kind)))
    assert view(body).latest == QUERIES["sky"]
