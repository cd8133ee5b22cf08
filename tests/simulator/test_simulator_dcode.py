"""Deep Agents Code (dcode 0.1.57, deepagents 0.7.6) through the demo's simulator: its `task`
call names a subagent type the tool's description lists, and its `write_file` an absolute path
under the working directory its system prompt states.

deepagents lists its subagent types in the `task` tool's description alone ("- general-purpose:
...") and refused the simulator's `subagent_type`, the ask's words ("Use the task tool to
have"); dcode's `write_file` wants "Absolute path where the file should be written", and the
simulator's `fib.py` was written at `/fib.py` (a live review of demo mode). Replayed from the
recorded bodies (`tests/fixtures/dcode-0.1.57-sim.md`), through a real socket, the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread
from router.simulator.offered_agents import described, names_agent
from router.simulator.workdir import rooted, working_directory
from tests import recorded
from tests.simulator.calls import client, only_call

captured = recorded.loader(recorded.FIXTURES / "dcode-0.1.57-sim")
WORKDIR = "/tmp/live_deepagents/repo1"  # what dcode's recorded system prompt states


def responses_call(sim: SimThread, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The one function call the simulator's Responses answer to `body` (not streamed) makes."""
    sent = {key: value for key, value in body.items() if key != "stream"} | {"model": "tiny"}
    reply = httpx.post(sim.url + "/v1/responses", json=sent, timeout=30).json()
    (call,) = [item for item in reply["output"] if item["type"] == "function_call"]
    return call["name"], json.loads(call["arguments"])


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_dcodes_task_call_names_a_listed_subagent_type(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    name, arguments = responses_call(start_sim(profile=profile), captured("task-subagent.json"))
    assert name == "task"
    assert arguments["subagent_type"] == "general-purpose"


def test_the_task_call_takes_the_type_the_ask_names(start_sim: Callable[..., SimThread]) -> None:
    """deepagents' own agent (chat completions, no system text) lists a `coder` beside
    `general-purpose`: the ask naming it gets it, one naming none the first listed."""
    body = captured("task-chat.json")
    sdk = client(start_sim())
    fields = {key: body[key] for key in ("messages", "tools")}
    name, arguments = only_call(sdk.chat.completions.create(model="tiny", **fields))
    assert (name, arguments["subagent_type"]) == ("task", "general-purpose")
    body["messages"][1]["content"] = "Use the task tool to have the coder write fib.py"
    fields = {key: body[key] for key in ("messages", "tools")}
    name, arguments = only_call(sdk.chat.completions.create(model="tiny", **fields))
    assert (name, arguments["subagent_type"]) == ("task", "coder")


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_dcodes_write_file_gets_an_absolute_path_under_its_directory(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    name, arguments = responses_call(start_sim(profile=profile), captured("write-file.json"))
    assert name == "write_file"
    assert arguments["file_path"] == f"{WORKDIR}/fib.py"


def test_the_stated_working_directory() -> None:
    """dcode's, Claude Code's and a plain "cwd:" statement; none where none is stated or the
    path is relative."""
    assert working_directory("is currently operating in: `/tmp/live_deepagents/repo1`\n") == WORKDIR
    assert working_directory(" - Primary working directory: /work/c1\n - Is a git") == "/work/c1"
    assert working_directory("Current working directory: /srv/app/.") == "/srv/app"
    assert working_directory("cwd: /") == "/"
    assert working_directory("Set the working directory to the repo.") == ""
    assert working_directory("Working directory: src/app") == ""


def test_a_path_is_rooted_only_where_it_must_be_absolute() -> None:
    absolute = {"type": "string", "description": "Absolute path to the file to read."}
    assert rooted("fib.py", "path", absolute, "/w") == "/w/fib.py"
    assert rooted("./src/../fib.py", "file_path", {}, "/w") == "/w/fib.py"  # named so
    assert rooted("/etc/hosts", "file_path", absolute, "/w") == "/etc/hosts"
    assert rooted("fib.py", "path", {"description": "Relative path."}, "/w") == "fib.py"
    assert rooted("fib.py", "file_path", absolute, "") == "fib.py"  # no directory stated


def test_described_agents_and_type_fields() -> None:
    """Bullets of one-word names before a colon, in a description that speaks of agents; a
    usage note ("- Each invocation is stateless: ...") is none."""
    about = "Agent types:\n- general-purpose: all tools\n- Each call is stateless: yes\n- coder: x"
    assert described(about) == ("general-purpose", "coder")
    assert described("Options:\n- fast: quick\n") == ()
    free = {"type": "string"}
    assert names_agent("subagent_type", free) and names_agent("agent_type", free)
    assert not names_agent("content_type", free) and not names_agent("user_agent_type", free)
