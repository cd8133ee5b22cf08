"""swarms' autonomous loop finishes in demo mode: a subtask is closed with the id its plan
gave it, and the final summary calls `complete_task`.

swarms 16.0.3 (`max_loops="auto"`) plans with `create_plan`, then asks "You are currently
working on subtask: <step_id> ..." to be closed by `subtask_done(task_id=<step_id>)`, and ends
with a transcript of the run asking for `complete_task`. The simulator filled `task_id` with the
prompt's first words, so no step completed and the run went to swarms' cap of 21 requests, and
it answered the summary with `create_plan`, named in the transcript's head (a live review of
demo mode). The bodies are the ones swarms sent (`tests/fixtures/swarms-16.0.3.md`); through
the official openai SDK, a real socket, the simulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from classifier.swarms import SUMMARY, latest_entry
from router.simulator import SimThread
from router.simulator.called_ids import called_ids, is_id, shown_id
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client, only_call, string_tool

captured = loader(FIXTURES / "swarms-16.0.3")
STEP = "You need to create a comprehensive"  # the step id of the demo model's plan


def called(sim: SimThread, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return only_call(client(sim).chat.completions.create(**{**body, "model": "tiny"}))


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_subtask_is_closed_with_its_plans_step_id(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    body = captured("auto-subtask.json")
    assert called_ids(body["messages"]) == (STEP,)
    assert f"working on subtask: {STEP}\n" in body["messages"][-1]["content"]
    name, arguments = called(start_sim(profile=profile), body)
    assert (name, arguments["task_id"]) == ("subtask_done", STEP)


def test_the_final_summary_calls_complete_task(start_sim: Callable[..., SimThread]) -> None:
    body = captured("auto-summary.json")
    assert latest_entry(body["messages"][-1]["content"]) == SUMMARY
    assert called(start_sim(), body)[0] == "complete_task"


def test_the_plan_is_made_as_before(start_sim: Callable[..., SimThread]) -> None:
    """No call before it: its ids are the prompt's first words, as before."""
    name, arguments = called(start_sim(), captured("auto-plan.json"))
    assert name == "create_plan" and arguments["steps"][0]["step_id"] == STEP


def test_an_id_no_earlier_call_gave_is_filled_as_before(
    start_sim: Callable[..., SimThread],
) -> None:
    """The ask shows an id no call of the conversation gave: the prompt's first words."""
    tool = string_tool("close_ticket", "ticket_id")
    messages = [{"role": "user", "content": "Close ticket T-17 with close_ticket now please."}]
    body = {"messages": messages, "tools": [tool]}
    assert called(start_sim(), body) == (
        "close_ticket",
        {"ticket_id": "Close ticket T-17 with close_ticket now"},
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("id", True),
        ("task_id", True),
        ("stepId", True),
        ("ID", True),
        ("idea", False),
        ("identity", False),
        ("paid", False),
        ("", False),
    ],
)
def test_an_id_field_is_named_so(name: str, expected: bool) -> None:
    assert is_id(name) is expected


def test_the_ids_earlier_calls_gave() -> None:
    def call(arguments: str) -> dict[str, Any]:
        return {"function": {"name": "f", "arguments": arguments}}

    turns = [
        {"role": "user", "content": "task_id: u-1"},
        {
            "role": "assistant",
            "tool_calls": [call('{"steps": [{"step_id": "step_1"}, {"step_id": "step_10"}]}')],
        },
        {"role": "assistant", "tool_calls": [call("not json"), call('{"id": 7, "run_id": "r"}')]},
    ]
    assert called_ids(turns) == ("step_1", "step_10", "r")
    assert shown_id(called_ids(turns), "working on step_10 now") == "step_10"
    assert shown_id(called_ids(turns), "working on step_2") is None


def test_a_text_that_is_no_swarms_transcript_has_no_latest_entry() -> None:
    assert latest_entry(SUMMARY) is None
    assert latest_entry("[2026-12-07T07:53:05] System: one entry") is None
    text = "[2026-12-07T07:53:05] System: x\n\n[a] list\n\n[2026-12-07T07:53:06] Human: go"
    assert latest_entry(text) == "go"
