"""A smolagents run is one conversation, read by its task, and a CodeAgent's steps are coding
(`classifier.smolagents`).

smolagents 1.26.0 sends each step of a run as a request of its own: the initial plan (no
system prompt, the task inside its planning prompt), each action step (the agent's system
prompt, "New task:" and the task), a plan update (another system prompt, the task in it), the
final answer (yet another). Read as sent, the conversation key changed with each kind: a
CodeAgent run with planning was four conversations in the ledger, each pinned on its own, and
"How many prime numbers are there below 100?" was math 0.99, its code steps sent to the cloud
(found in a review of agent frameworks). The bodies are the ones it sent
(`tests/fixtures/smolagents-1.26.0.md`); real sockets, the official SDK, a real DuckDB
ledger, the simulators as backends. Each test sends as a caller of its own: a conversation
is scoped by the caller's key, and no test's pin holds another's.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier.clip import clip
from classifier.rules import CODE_ANSWER
from router.conversation import conversation_key
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "smolagents-1.26.0"
WEATHER = "What is the weather in Paris?"
PRIMES = "How many prime numbers are there below 100?"
KINDS = ("plan", "step", "plan-update", "step-after-update", "final-answer")
# Each run's requests in the order sent, and what serves each: the ToolCallingAgent's steps
# are tool_calling (`tool_choice: "required"`, its plans and final answer by the task), the
# CodeAgent's coding but for the final answer, which holds no mark of the agent's kind (math,
# served where the run is pinned)
RUNS = {
    "tool": (WEATHER, ["tool_calling"] * 5),
    "code": (PRIMES, ["coding"] * 4 + ["math"]),
}
KEYS = {name: f"sk-smolagents-{name}-7f3a" for name in ("tool", "code", "first", "typed")}


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def run_bodies(run: str) -> list[dict[str, Any]]:
    return [captured(f"{run}-{kind}.json") for kind in KINDS]


def explained(pinning: tuple[RunningRouter, Collect], body: dict[str, Any]) -> dict[str, Any]:
    """The classifier's part of what `POST /v1/router/explain` says of `body`."""
    headers = {"authorization": f"Bearer {KEYS['typed']}"}
    reply = httpx.post(f"{pinning[0].root}/v1/router/explain", json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    return dict(reply.json()["classifier"])


@pytest.mark.parametrize("run", RUNS)
def test_a_run_is_one_conversation_on_one_backend(
    pinning: tuple[RunningRouter, Collect], run: str
) -> None:
    """Plan, step, plan update, step, final answer: one conversation in the ledger, one
    backend, each step's intent that of its kind."""
    task, intents = RUNS[run]
    bodies = run_bodies(run)
    assert bodies[0]["messages"][0]["role"] == "user"  # the plan: no system prompt
    assert len({json.dumps(b["messages"][0]) for b in bodies[1:]}) == 3  # three others
    headers = [pinned_headers(pinning, KEYS[run], body) for body in bodies]
    ids = [h["x-request-id"] for h in headers]
    rows = ledger_rows(pinning[0], ids)
    assert sorted(row[0] for row in rows) == sorted(ids)
    assert len({row[1] for row in rows}) == 1 and rows[0][1] is not None
    assert {row[3] for row in rows} == {h["x-smf-backend"] for h in headers} == {"local"}
    assert [h["x-smf-intent"] for h in headers] == intents
    # the key is the task's: each step reads it as the first ask, and as the latest
    for body in bodies:
        read = explained(pinning, body)["read"]
        assert (read["latest_chars"], read["first_chars"]) == (len(task), 0)
    keys = {conversation_key(body, {}, "c") for body in bodies}
    assert len(keys) == 1


def test_a_codeagents_math_task_is_coding_on_the_local_backend(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """A CodeAgent's first step of "How many prime numbers are there below 100?": its reply
    must be code, so it is coding (local), though the model reads the task as math, as it
    does asked alone (cloud)."""
    body = captured("code-first-step.json")
    assert body["stop"] == ["Observation:", "Calling tools:", "</code>"] and "tools" not in body
    headers = pinned_headers(pinning, KEYS["first"], body)
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("coding", "local")
    why = explained(pinning, body)
    assert (why["source"], why["rule"]) == ("rule", CODE_ANSWER)
    assert why["model_intent"] == "math"
    alone = {"model": "auto", "messages": [{"role": "user", "content": PRIMES}]}
    headers = pinned_headers(pinning, KEYS["first"], alone)
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("math", "cloud")


@pytest.mark.parametrize("system", [None, "You are a helpful assistant."])
def test_new_task_typed_elsewhere_is_read_whole(
    pinning: tuple[RunningRouter, Collect], system: str | None
) -> None:
    """Without smolagents' system prompt, "New task:" is a user's words, and so is its
    planning prompt with words after its end: read as written, keyed as any chat is, and
    no CodeAgent's step."""
    plan = captured("code-plan.json")["messages"][0]["content"][0]["text"]
    for text in (f"New task:\n{PRIMES}", plan + "\nAnd then say why."):
        messages = [{"role": "user", "content": text}]
        if system is not None:
            messages.insert(0, {"role": "system", "content": system})
        body = {"model": "auto", "messages": messages}
        why = explained(pinning, body)
        assert (why["read"]["latest_chars"], why["rule"]) == (len(clip(text)), None)
        bare = copy.deepcopy(body)
        bare["messages"][-1]["content"] = PRIMES
        assert conversation_key(body, {}, "c") != conversation_key(bare, {}, "c")
    typed = {"model": "auto", "messages": [{"role": "user", "content": f"New task:\n{PRIMES}"}]}
    headers = pinned_headers(pinning, KEYS["typed"], typed)
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("math", "cloud")
