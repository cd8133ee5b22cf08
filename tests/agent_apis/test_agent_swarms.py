"""swarms' autonomous run (`max_loops="auto"`) is one conversation, its final summary too
(`classifier.swarms`).

swarms 16.0.3 ends the run with a summary request that flattens the agent's history into one
user message, a transcript of timestamped entries ("[2026-12-07T07:53:05.470009] System:
...", "... Human: <the task>", ..., "... Human: All subtasks are complete. ..."). Its first
ask was that transcript, not the task its loop's requests open with: one run was two
conversations, and the run's pin did not hold for its summary (found in a live review). The
bodies are the ones it sent (`tests/fixtures/swarms-16.0.3.md`); real sockets, the official
SDK, the simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.swarms import OPENING, SUMMARY, run_task
from router.conversation import conversation_key
from tests.agent_apis.agent_stack import streamed_headers
from tests.harness import Collect, RunningRouter
from tests.recorded import FIXTURES, loader

captured = loader(FIXTURES / "swarms-16.0.3")
RUN = ("auto-plan.json", "auto-subtask.json", "auto-summary.json")
TASK = "Add 17 and 25 using the add tool, then report the result."
# Keys (caller "c", no secret) computed on the code before this reader: requests like the
# summary's that are not a run's summary key as they did (`unrelated`)
BEFORE = {
    "cut": "851f8521112b0205",
    "alone": "d6ec1688bcb3af9c",
    "taskless": "d3bf14ba3c33eadd",
    "second_user": "b4eb34b783003685",
    "loop": "988611f05ffe20f0",
}


def transcript(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def with_transcript(text: str) -> dict[str, Any]:
    body = captured("auto-summary.json")
    body["messages"][-1]["content"] = text
    return body


def unrelated() -> dict[str, dict[str, Any]]:
    """Requests near the summary's that are no run's summary: its transcript cut from its
    head (as swarms' dynamic context window cuts it), the summary prompt alone as a chat's
    ask, a transcript with no task entry, and the summary after another user message."""
    text = transcript(captured("auto-summary.json"))
    second = captured("auto-summary.json")
    second["messages"].insert(1, {"role": "user", "content": "Add 2 and 3."})
    return {
        "cut": with_transcript(text[text.index("\n\n[", 100) + 2 :]),
        "alone": {"model": "auto", "messages": [{"role": "user", "content": SUMMARY}]},
        "taskless": with_transcript(
            "[2026-12-07T07:53:05.470009] System: \nYou are an agent.\n\n"
            f"[2026-12-07T07:53:05.973201] Human: {SUMMARY}"
        ),
        "second_user": second,
    }


def test_the_bodies_are_swarms_autonomous_run() -> None:
    plan, subtask, summary = (captured(name) for name in RUN)
    assert plan["messages"][1] == {"role": "user", "content": TASK}
    assert subtask["messages"][:2] == plan["messages"][:2]
    assert [m["role"] for m in summary["messages"]] == ["system", "user"]
    assert summary["messages"][0]["content"] == plan["messages"][0]["content"]
    text = transcript(summary)
    assert OPENING.match(text) and text.endswith(f"] Human: {SUMMARY}")
    assert f"] Human: {TASK}\n\n[" in text


def test_the_summary_holds_the_runs_task() -> None:
    assert run_task(captured("auto-summary.json")["messages"]) == TASK
    for name in RUN[:2]:
        assert run_task(captured(name)["messages"]) is None


@pytest.mark.parametrize("user", ["Ada", "user (A+)"])
def test_the_task_is_read_under_the_agents_user_name(user: str) -> None:
    """The task is the first entry of the role the summary's entry has, the agent's
    `user_name` ("Human" by default, any text: matched as written, not as a pattern); a
    task of several paragraphs is read whole, up to the next entry."""
    task = "Add 17 and 25 using the add tool.\n\nThen report the result [in words]."
    text = transcript(captured("auto-summary.json")).replace(TASK, task)
    body = with_transcript(text.replace("] Human: ", f"] {user}: "))
    assert run_task(body["messages"]) == task


def test_the_summary_is_keyed_as_the_runs_loop() -> None:
    keys = {name: conversation_key(captured(name), {}, "c") for name in RUN}
    assert set(keys.values()) == {BEFORE["loop"]}


@pytest.mark.parametrize("name", sorted(BEFORE.keys() - {"loop"}))
def test_requests_that_are_no_runs_summary_key_as_before(name: str) -> None:
    body = unrelated()[name]
    assert run_task(body["messages"]) is None
    assert conversation_key(body, {}, "c") == BEFORE[name]


def test_the_summary_is_in_the_runs_conversation(default_proxy: RunningRouter) -> None:
    """The run's requests, each served: one conversation in the router's records."""
    records = Collect()
    default_proxy.components.gateway.sinks.append(records)
    try:
        keys = []
        for name in RUN:
            streamed_headers(default_proxy, records, copy.deepcopy(captured(name)))
            keys.append(records.records[-1].conversation)
    finally:
        default_proxy.components.gateway.sinks.remove(records)
    assert len(set(keys)) == 1 and keys[0] is not None
