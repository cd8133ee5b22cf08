"""browser-use's requests, on the classifier's view and the conversation key alone
(`classifier.browser_use`): what is read of each, which are its agent's steps, and where its
texts are a user's. The captured runs go through the router in
`tests/agent_apis/test_agent_browser_use.py`.

Found in a live review of browser-use 0.13.14: its agent's steps were routed by the page
("Open the article, then find the cheapest item in the shop" writing 0.39 on the article's
page, on the cloud), its nudges were read as the ask, and one 5-step run was 9 conversations.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify, explain
from classifier.browser_use import (
    AGENT_SYSTEM,
    COMPACTION_SYSTEM,
    EXTRACT_SYSTEMS,
    JUDGE_SYSTEM,
    OUTPUT_FORMAT,
    REQUEST_END,
    REQUEST_OPENING,
)
from classifier.evaluation import LOCAL
from classifier.fixed import BROWSER_COMPACTION_READING, BROWSER_STEP_READING
from classifier.request import view
from classifier.rules import BROWSER_COMPACTION, BROWSER_STEP
from router.conversation import conversation_key
from tests import recorded

FIXTURES = recorded.FIXTURES / "browser-use-0.13.14"
SHOP = "Find the cheapest item on http://127.0.0.1:8822/ and tell me its price"
ARTICLE = (
    "Open http://127.0.0.1:8822/article.html, then go to the shop and find the cheapest item"
    " and its price"
)
# The agent's steps and judges, and the run's task each is read by
RUNS = {
    "step-shop.json": SHOP,
    "judge-shop.json": SHOP,
    "step-output-format.json": SHOP,
    "judge-output-format.json": SHOP,
    "step-article-1.json": ARTICLE,
    "step-article-budget.json": ARTICLE,
    "step-article-retry.json": ARTICLE,
}
STEPS = sorted(name for name in RUNS if name.startswith("step-"))
# The extractions, and the query each is read by (the demo model's, as it wrote it)
QUERIES = {
    "extract.json": "<user_request> Open http://127.0.0.1:8822/article.html, then go to",
    "extract-structured.json": "<user_request> List every item and price",
}


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def state_text(body: dict[str, Any]) -> str:
    """The agent step's state message's text (its first part's, with vision)."""
    content = body["messages"][1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def test_browser_uses_texts_are_the_ones_it_sends() -> None:
    """The openings `classifier.browser_use` matches, found in the bodies browser-use sent
    (`agent/system_prompts/*.md`, `agent/prompts.py`, `agent/judge.py`,
    `tools/service.py`, `agent/message_manager/service.py`)."""
    for name in STEPS:
        body = captured(name)
        assert body["messages"][0]["content"].startswith(AGENT_SYSTEM)
        text = state_text(body)
        assert text.startswith(REQUEST_OPENING) and REQUEST_END in text
    for name in ("judge-shop.json", "judge-output-format.json"):
        assert captured(name)["messages"][0]["content"].startswith(JUDGE_SYSTEM)
    for name in QUERIES:
        assert captured(name)["messages"][0]["content"].startswith(EXTRACT_SYSTEMS)
    assert captured("compaction.json")["messages"][0]["content"].startswith(COMPACTION_SYSTEM)
    assert f"{OUTPUT_FORMAT}Cheapest\n{{" in state_text(captured("step-output-format.json"))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_step_and_the_judge_are_read_by_the_runs_task(name: str) -> None:
    """Not the page, the history, the step's nudges nor the output format browser-use
    appends: the task, the latest and only ask."""
    seen = view(captured(name))
    assert (seen.latest, seen.first) == (RUNS[name], "")
    assert (seen.fixed == BROWSER_STEP_READING) == name.startswith("step-")
    assert (seen.harness_cut, seen.fixed == BROWSER_COMPACTION_READING) == (False, False)


@pytest.mark.parametrize("name", STEPS)
def test_an_agent_step_is_tool_calling_whatever_its_page(name: str) -> None:
    """Its reply is its next browser actions: tool_calling by rule, on the article's page
    too (writing 0.39 by the page, before) and after a nudge (read as the ask, before)."""
    intent = classify(captured(name))
    assert (intent.label, intent.confidence, intent.source) == ("tool_calling", 0.97, "rule")
    assert explain(captured(name))["rule"] == BROWSER_STEP


def test_the_judge_is_what_the_task_alone_is() -> None:
    for name in ("judge-shop.json", "judge-output-format.json"):
        alone = {"model": "auto", "messages": [{"role": "user", "content": SHOP}]}
        assert classify(captured(name)).label == classify(alone).label == "tool_calling"


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_an_extraction_is_read_by_its_query(name: str) -> None:
    """Not the page's markdown nor the output schema: the query the agent wrote. Its
    system prompt stays a weak signal, which may move the label within a route (the
    structured extraction reads coding, its query alone tool_calling, since complement NB's
    term, 2026-12-06), not across."""
    body = captured(name)
    seen = view(body)
    assert (seen.latest, seen.first, seen.fixed == BROWSER_STEP_READING) == (
        QUERIES[name],
        "",
        False,
    )
    alone = {"model": "auto", "messages": [{"role": "user", "content": QUERIES[name]}]}
    assert (classify(body).label in LOCAL) == (classify(alone).label in LOCAL)


def test_the_compaction_asks_nothing_and_is_its_agents_work() -> None:
    """Its history holds the agent's steps, no ask: read as the steps are, tool_calling (it
    was coding 0.86 by the history's URLs and tags)."""
    body = captured("compaction.json")
    seen = view(body)
    assert (seen.latest, seen.first, seen.fixed == BROWSER_COMPACTION_READING) == ("", "", True)
    intent = classify(body)
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == BROWSER_COMPACTION


def test_a_run_and_its_judge_are_one_conversation() -> None:
    """Every step, rebuilt with the page each time, and the judge: one key per run's task
    (two runs of one task, with an output model or without, one too); a chat asking the
    task's words is another."""
    keys = {name: conversation_key(captured(name), {}, "c") for name in RUNS}
    assert len({keys[name] for name in RUNS if RUNS[name] == SHOP}) == 1
    assert len({keys[name] for name in RUNS if RUNS[name] == ARTICLE}) == 1
    assert keys["step-shop.json"] != keys["step-article-1.json"]
    chat = {"model": "auto", "messages": [{"role": "user", "content": SHOP}]}
    assert conversation_key(chat, {}, "c") != keys["step-shop.json"]


def test_a_follow_up_task_is_the_latest_ask_of_the_same_conversation() -> None:
    """`Agent.add_new_task` rewrites the task as the initial request and each follow-up in
    tags: the last follow-up is the latest ask, the initial request the first, which keys
    the run as before."""
    body = captured("step-article-1.json")
    follow = "Now find the most expensive one too"
    tagged = (
        f"<initial_user_request>{ARTICLE}</initial_user_request>\n"
        f"<follow_up_user_request> Say hello </follow_up_user_request>\n"
        f"<follow_up_user_request> {follow} </follow_up_user_request>"
    )
    later = copy.deepcopy(body)
    later["messages"][1]["content"] = state_text(body).replace(ARTICLE, tagged, 1)
    seen = view(later)
    assert (seen.latest, seen.first) == (follow, ARTICLE)
    assert conversation_key(later, {}, "c") == conversation_key(body, {}, "c")


@pytest.mark.parametrize(
    "system", [None, "You are a helpful assistant.", AGENT_SYSTEM[:60], JUDGE_SYSTEM[:40]]
)
def test_browser_uses_layout_in_another_request_is_read_as_written(system: str | None) -> None:
    """A user's own message holding `<user_request>` (a state dump pasted into a chat),
    without browser-use's system prompt: a user's words, read and keyed as written, no
    agent step."""
    text = state_text(captured("step-article-1.json"))
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    body = {"model": "auto", "messages": messages}
    seen = view(body)
    assert explain(body)["read"]["latest_chars"] == len(text)
    assert (
        seen.first,
        seen.fixed == BROWSER_STEP_READING,
        seen.fixed == BROWSER_COMPACTION_READING,
    ) == ("", False, False)
    assert conversation_key(body, {}, "c") != conversation_key(
        captured("step-article-1.json"), {}, "c"
    )


def test_a_chat_after_browser_uses_prompt_is_read_as_written() -> None:
    """Its system prompt with a conversation of the user's after it (an assistant's turn
    between): the latest ask is the user's own, read as written."""
    body = captured("step-article-1.json")
    body["messages"] += [
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Write a haiku about autumn leaves."},
    ]
    seen = view(body)
    assert (seen.latest, seen.fixed == BROWSER_STEP_READING) == (
        "Write a haiku about autumn leaves.",
        False,
    )
