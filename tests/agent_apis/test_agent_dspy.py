"""A DSPy call is read by its inputs, a ReAct run is one conversation, and the calls of a
compiled program are conversations of their own (`classifier.dspy`).

DSPy 3.4.1 sends each call of a predictor with its adapter's system prompt, the program's
demos, and the call's inputs under DSPy's headers with its order to answer after them; a
ReAct run sends a step at a time, its trajectory growing, then an extract step with another
system prompt. Read as sent, DSPy's texts decided the intent ("Compute 17 * 23" was
instruction, local); a ReAct run was a conversation a step; and a compiled program's first
demo keyed every call of it, so a Python question was pinned to the cloud by the haiku asked
before it (found in a review of agent frameworks). The bodies are the ones it sent
(`tests/fixtures/dspy-3.4.1.md`); real sockets, the official SDK, a real DuckDB ledger, the
simulators as backends. Each test sends as a caller of its own: a conversation is scoped by
the caller's key, and no test's pin holds another's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier.rules import TOOL_STEP
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "dspy-3.4.1"
# Each ReAct run's requests in the order sent, and the intent of each: its steps must name a
# tool, its extract step is the task's (served where the run is pinned)
RUNS = {
    "react": ("Fix the bug in utils.py: the add function returns the wrong result.", "coding"),
    "react-sky": ("Explain why the sky is blue.", "reasoning"),
}
# Each call and where its ask alone goes: the intent and the backend of the default routes
CALLS = {
    "predict.json": ("Compute 17 * 23", ("math", "cloud")),
    "predict-json-fallback.json": ("Compute 17 * 23", ("math", "cloud")),
    "demos-haiku.json": ("Write a haiku about autumn leaves.", ("prose", "cloud")),
    "demos-python.json": ("Write a Python function that reverses a list", ("coding", "local")),
}
KEYS = {name: f"sk-dspy-{name}-5c1e" for name in (*RUNS, "demos", "typed")}


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


@pytest.mark.parametrize("run", RUNS)
def test_a_react_run_is_one_conversation_on_one_backend(
    pinning: tuple[RunningRouter, Collect], default_proxy: RunningRouter, run: str
) -> None:
    """Two steps and the extract step: one conversation in the ledger, one backend; the
    steps tool_calling, the extract step the task's intent, served where the run is
    pinned."""
    task, intent = RUNS[run]
    bodies = [captured(f"{run}-{kind}.json") for kind in ("step-1", "step-2", "extract")]
    assert len({b["messages"][0]["content"] for b in bodies}) == 2  # the extract's own
    headers = [pinned_headers(pinning, KEYS[run], body) for body in bodies]
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in headers])
    assert len(rows) == 3 and rows[0][1] is not None
    assert {row[1] for row in rows} == {rows[0][1]}
    assert [h["x-smf-intent"] for h in headers] == ["tool_calling", "tool_calling", intent]
    assert {h["x-smf-backend"] for h in headers} == {row[3] for row in rows} == {"local"}
    for body in bodies:
        read = explained(default_proxy, body)["classifier"]["read"]
        assert (read["latest_chars"], read["first_chars"]) == (len(task), 0)
    why = explained(default_proxy, bodies[0])["classifier"]
    assert (why["source"], why["rule"]) == ("rule", TOOL_STEP)


def test_calls_of_a_compiled_program_are_conversations_of_their_own(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """A program with demos asked for a haiku, then for a Python function: two
    conversations, each served where its ask goes, though both open with the same demos."""
    first, second = captured("demos-haiku.json"), captured("demos-python.json")
    assert first["messages"][:-1] == second["messages"][:-1]
    headers = [pinned_headers(pinning, KEYS["demos"], body) for body in (first, second)]
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in headers])
    assert rows[0][1] != rows[1][1]
    assert [(h["x-smf-intent"], h["x-smf-backend"]) for h in headers] == [
        ("prose", "cloud"),
        ("coding", "local"),
    ]


@pytest.mark.parametrize("name", CALLS)
def test_a_call_goes_where_its_ask_alone_goes(default_proxy: RunningRouter, name: str) -> None:
    """A call, with demos or without, and the JSON adapter's retry after a reply the chat
    adapter could not parse: read by its inputs, not by DSPy's headers and order to
    answer."""
    ask, where = CALLS[name]
    alone = {"model": "auto", "messages": [{"role": "user", "content": ask}]}
    assert served(default_proxy, captured(name)) == served(default_proxy, alone) == where
    read = explained(default_proxy, captured(name))["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (len(ask), 0)


def test_dspys_layout_typed_elsewhere_is_read_whole(default_proxy: RunningRouter) -> None:
    """Without DSPy's system prompt, its headers and order to answer are a user's words:
    read whole, as they were before DSPy's texts were known."""
    typed = captured("predict.json")["messages"][1]["content"]
    body = {"model": "auto", "messages": [{"role": "user", "content": typed}]}
    assert explained(default_proxy, body)["classifier"]["read"]["latest_chars"] == len(typed)
    assert served(default_proxy, body) == ("instruction", "local")
