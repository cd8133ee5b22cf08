"""mini-swe-agent's answer to a reply it could not run is passed over for the run's task
(`classifier.mini_swe_agent`).

mini-swe-agent 2.4.6 sends its `format_error_template` as a user message when its model's
reply held no command it could run. Read as the ask, the step was tool_calling by the rule
for an ask that names a tool ("Call the bash tool ...") or instruction 0.65-0.83, where the
run's first step was coding (found running mini-swe-agent). The bodies are the ones it sent
(`tests/fixtures/mini-swe-agent-2.4.6.md`); real sockets, the official SDK, the simulators
as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mini-swe-agent-2.4.6"
# Each step after a format error, and the run's first step, of one config
STEPS = [
    ("tool-call-format-error", "tool-call-first-step"),
    ("text-format-error", "text-first-step"),
    ("default-format-error", "text-first-step"),  # the same task and system prompt
]


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize(("step", "first"), STEPS, ids=[s[0] for s in STEPS])
def test_a_step_after_a_format_error_is_read_by_the_runs_task(
    proxy: RunningRouter, step: str, first: str
) -> None:
    body = captured(step)
    last = body["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith(("Tool call error:", "Format"))
    task = body["messages"][1]["content"]
    assert task == captured(first)["messages"][1]["content"]
    plan = explained(proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == explained_chars(proxy, first)
    assert plan["intent"]["label"] == "coding" and plan["classifier"]["rule"] is None
    assert served(proxy, body) == served(proxy, captured(first)) == ("coding", "local")


def explained_chars(proxy: RunningRouter, name: str) -> tuple[int, int]:
    """How much of the latest and the first ask `explain` says it read of the body `name`."""
    read = explained(proxy, captured(name))["classifier"]["read"]
    return read["latest_chars"], read["first_chars"]
