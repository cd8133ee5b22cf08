"""Semantic Kernel's Magentic manager: one run is one conversation, each request read by the
task; its summarization reducer's request asks nothing (`classifier.semantic_kernel`).

Semantic Kernel 1.45.0's `StandardMagenticManager` frames the run's task in MagenticOne's
prompts: a facts survey, a plan, a progress check each round (with a `json_schema`
`response_format`), new facts and a new plan when stalled, the final answer. Read as sent, the
facts survey was instruction and the progress check coding for a math, a haiku and a code
task alike, only the final answer following the task, and each kind opened with another
message: one run was four conversations. Its `ChatHistorySummarizationReducer` sends the turns
it summarizes with its instructions after them as a system message: read by the last turn,
"Compute 17 * 23"'s summary went to the cloud as math (found in a review of agent
frameworks). The bodies are the ones it sent (`tests/fixtures/semantic-kernel-1.45.0.md`);
real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.agent_apis.agent_stack import explained, streamed_headers
from tests.agent_apis.served import served, served_by_default
from tests.harness import Collect, RunningRouter
from tests.semantic_kernel_runs import KINDS, TASKS, captured, manager

# Where each run's task goes by the default routes
WHERE = {
    "math": ("math", "cloud"),
    "haiku": ("prose", "cloud"),
    "code": ("coding", "local"),
    "replan": ("coding", "local"),
}


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def conversations(proxy: RunningRouter, bodies: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(conversation, intent, backend) of each of `bodies`, served in order as the official
    SDK sends them, from the router's records."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    try:
        seen = []
        for body in bodies:
            headers = streamed_headers(proxy, records, body)
            conversation = records.records[-1].conversation
            seen.append((conversation, headers["x-smf-intent"], headers["x-smf-backend"]))
    finally:
        proxy.components.gateway.sinks.remove(records)
    return seen


@pytest.mark.parametrize("run", WHERE)
def test_a_magentic_run_is_one_conversation_served_as_its_task(
    proxy: RunningRouter, run: str
) -> None:
    """Each manager's request read as the task (its length, nothing else), decided as the
    task alone is, and all of them one conversation, though their first user messages are
    three different texts (the facts' prompt, the progress check's or the final answer's,
    "Transferred to Solver")."""
    task, (intent, backend) = TASKS[run], WHERE[run]
    bodies = [manager(run, kind) for kind in KINDS[run]]
    firsts = [next(m for m in body["messages"] if m["role"] == "user") for body in bodies]
    assert len({json.dumps(first) for first in firsts}) == 3
    for body in bodies:
        read = explained(proxy, body)["classifier"]["read"]
        assert (read["latest_chars"], read["first_chars"]) == (len(task), 0)
    seen = conversations(proxy, bodies)
    assert len({conversation for conversation, _, _ in seen}) == 1 and seen[0][0] is not None
    assert {(i, b) for _, i, b in seen} == {(intent, backend)}
    alone = {"model": "auto", "messages": [{"role": "user", "content": task}]}
    assert served(proxy, alone) == (intent, backend)


@pytest.mark.parametrize("turn", [2, 4, 6])
def test_the_reducers_summary_request_takes_the_default_route(
    proxy: RunningRouter, turn: int
) -> None:
    """No ask read (the turns it summarizes are no ask of the request's), so the default
    route, local, as Agno's session summary takes it."""
    served_by_default(proxy, captured(f"reduce-{turn}.json"))


def test_a_reduced_chat_is_one_conversation_by_its_prompt_cache_key(proxy: RunningRouter) -> None:
    """With `prompt_cache_key` (frameworks.md), the chat, its reductions' requests and the
    turns after each, whose first ask changes at each: one conversation; each turn read by
    its ask, each summary request by none."""
    bodies = [captured(f"reduce-key-{turn}.json") for turn in range(1, 8)]
    seen = conversations(proxy, bodies)
    assert len({conversation for conversation, _, _ in seen}) == 1 and seen[0][0] is not None
    assert [intent for _, intent, _ in seen] == [
        "math", "unknown", "coding", "unknown", "prose", "unknown", "reasoning",
    ]  # fmt: skip
