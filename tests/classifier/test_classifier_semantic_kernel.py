"""Semantic Kernel's texts, on the classifier's view and the conversation key alone
(`classifier.semantic_kernel`): its Magentic manager's prompts around a run's task, and its
summarization reducer's request. The captured bodies go through the router in
`tests/agent_apis/test_agent_semantic_kernel.py`.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.clip import clip
from classifier.message import SCAN_MESSAGES
from classifier.request import view
from classifier.semantic_kernel import (
    FACTS_END,
    FACTS_OPENING,
    FINAL_END,
    FINAL_OPENING,
    LEDGER_FACTS,
    LEDGER_OPENING,
    LEDGER_TEAM,
    PLAN_END,
    PLAN_OPENING,
    PROGRESS_END,
    PROGRESS_OPENING,
    PROGRESS_TEAM,
    REPLAN_OPENING,
    SUMMARIZATION,
    UPDATE_OPENING,
    UPDATE_REST,
)
from router.conversation import conversation_key
from tests.semantic_kernel_runs import KINDS, TASKS, captured, manager

MANAGER = [(run, kind) for run in TASKS for kind in KINDS[run]]


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


def texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"]]


def test_the_managers_texts_are_the_ones_it_sends() -> None:
    """The texts `classifier.semantic_kernel` matches, found in the bodies Semantic Kernel
    1.45.0 sent (`_magentic_prompts.py`, `magentic.py`), the task escaped where its template
    escapes it."""
    task, escaped = TASKS["replan"], TASKS["replan"].replace("<", "&lt;").replace('"', "&quot;")
    plan = texts(manager("replan", "plan"))
    assert plan[0] == FACTS_OPENING + escaped + FACTS_END
    assert plan[2].startswith(PLAN_OPENING) and plan[2].endswith(PLAN_END)
    progress = texts(manager("replan", "progress-2"))
    assert (
        progress[0].startswith(LEDGER_OPENING + task + LEDGER_TEAM) and LEDGER_FACTS in progress[0]
    )
    assert progress[2] == "Transferred to Solver"
    assert progress[-1].startswith(PROGRESS_OPENING + task + PROGRESS_TEAM)
    assert progress[-1].endswith(PROGRESS_END)
    replan = texts(manager("replan", "plan-update"))
    assert replan[-3].startswith(UPDATE_OPENING + escaped + UPDATE_REST)
    assert replan[-1].startswith(REPLAN_OPENING)
    assert texts(manager("replan", "final"))[-1] == FINAL_OPENING + escaped + FINAL_END
    summarize = captured("reduce-2.json")["messages"][-1]
    assert summarize == {"role": "system", "content": SUMMARIZATION}


@pytest.mark.parametrize(("run", "kind"), MANAGER)
def test_each_managers_request_is_read_by_the_task(run: str, kind: str) -> None:
    """The facts survey (instruction 0.77-0.91), the plan, the progress check (coding
    0.60-0.92), the final answer: each read as the task, escaped or not, and decided as the
    task alone is; no agent's session."""
    body = manager(run, kind)
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == (TASKS[run], "", False)
    alone = classify(chat(("user", TASKS[run])))
    assert (classify(body).label, classify(body).confidence) == (alone.label, alone.confidence)


@pytest.mark.parametrize("run", TASKS)
def test_a_run_is_one_conversation(run: str) -> None:
    """Every request of a run one key, though each kind opens with another message; another
    run's another, and a chat asking the task's words another still."""
    keys = {conversation_key(manager(run, kind), {}, "c") for kind in KINDS[run]}
    assert len(keys) == 1
    others = {conversation_key(manager(other, "final"), {}, "c") for other in TASKS}
    assert len(others) == len(TASKS)
    assert keys.pop() != conversation_key(chat(("user", TASKS[run])), {}, "c")


def test_a_long_runs_progress_check_is_read_and_keyed_by_the_task() -> None:
    """Past the first ask's bound: 40 more rounds (instruction, "Transferred to", the agent's
    reply) between the ledger and the progress check, as a long run sends them."""
    body = manager("replan", "progress-2")
    rounds = body["messages"][1:4]
    longer = copy.deepcopy(body)
    longer["messages"][1:4] = rounds * 40
    assert len(longer["messages"]) > SCAN_MESSAGES
    assert view(longer).latest == TASKS["replan"]
    assert conversation_key(longer, {}, "c") == conversation_key(body, {}, "c")


@pytest.mark.parametrize(
    "messages",
    [
        # the progress prompt, the final answer's or the plan's, without the manager's
        # first message; "Transferred to" in another chat
        [("user", texts(manager("math", "progress"))[-1])],
        [("system", "You are a helpful assistant."), ("user", texts(manager("math", "final"))[-1])],
        [("user", "Hello"), ("assistant", "Hi."), ("user", texts(manager("math", "plan"))[-1])],
        [("user", "Hello"), ("assistant", "Hi."), ("user", "Transferred to Solver")],
        # the ledger after another first message; the facts' prompt with words after it
        [
            ("user", "Hi"),
            ("assistant", texts(manager("math", "final"))[0]),
            ("user", "Transferred to Solver"),
        ],
        [("user", texts(manager("math", "facts"))[0] + "Thanks!")],
    ],
)
def test_the_managers_texts_elsewhere_are_read_as_written(messages: list[tuple[str, str]]) -> None:
    body = chat(*messages)
    assert view(body).latest == clip(messages[-1][1])
    assert conversation_key(body, {}, "c") != conversation_key(manager("math", "facts"), {}, "c")


@pytest.mark.parametrize("turn", [2, 4, 6])
def test_the_reducers_summary_request_asks_nothing(turn: int) -> None:
    """The turns it summarizes, then its instructions as a system message: no ask, the
    default route, as Agno's session summary takes it; no agent's session. Read by the last
    turn, "Compute 17 * 23"'s summary was math (cloud)."""
    body = captured(f"reduce-{turn}.json")
    assert [m["role"] for m in body["messages"]][-1] == "system"
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == ("", "", False)
    assert classify(body).source == "default"


@pytest.mark.parametrize("turn", [1, 3, 5, 7])
def test_the_turns_around_a_summary_are_read_as_asked(turn: int) -> None:
    body = captured(f"reduce-{turn}.json")
    assert view(body).latest == body["messages"][-1]["content"]


@pytest.mark.parametrize(
    "messages",
    [
        # the instructions typed as a user's, or not last, or after another text
        [("user", "Compute 17 * 23"), ("assistant", "391"), ("user", SUMMARIZATION)],
        [("user", "Compute 17 * 23"), ("system", SUMMARIZATION), ("user", "And 18 * 23?")],
        [("user", "Compute 17 * 23"), ("system", SUMMARIZATION + "Be brief.")],
    ],
)
def test_the_summarization_prompt_elsewhere_is_no_summary_request(
    messages: list[tuple[str, str]],
) -> None:
    last_user = next(text for role, text in reversed(messages) if role == "user")
    assert view(chat(*messages)).latest == clip(last_user)


def test_a_reduced_chat_keys_as_one_only_by_its_prompt_cache_key() -> None:
    """After each reduction the summary (an assistant message, nothing on the wire telling it
    from a reply) stands in for the turns before it, and the first ask changes: the key
    changes with it, but for the `prompt_cache_key` the chat sends (frameworks.md)."""
    turns = [captured(f"reduce-{turn}.json") for turn in (1, 3, 5, 7)]
    assert len({conversation_key(body, {}, "c") for body in turns}) == 4
    keyed = [captured(f"reduce-key-{turn}.json") for turn in range(1, 8)]
    assert len({conversation_key(body, {}, "c") for body in keyed}) == 1
