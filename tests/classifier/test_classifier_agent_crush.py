"""crush's requests: its search sub-agent's tools and its title call.

Found in a live review with bodies in crush's shapes (charmbracelet/crush: the tool names
of `internal/config/config.go` `allToolNames`, the title call of `internal/agent/agent.go`
`generateTitle`; its binary could not be installed there): the sub-agent, offered glob,
grep, ls, sourcegraph and view, had two of them known, and "Find where sync_dir is defined
and explain what it does" was reasoning 0.54, on the cloud; the title call's fixed text was
read as the ask, and 4 of 7 coding asks went to the cloud.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.harness_tools import HARNESS_TOOLS
from classifier.request import view

# crush's title prompt (its `title.md`, opening) with what `generateTitle` appends
TITLE_SYSTEM = (
    "you will generate a short title based on the first message a user begins a "
    "conversation with\n- ensure it is not more than 50 characters long\n /no_think"
)
TASK_SYSTEM = (
    "You are an agent for Crush. Given the user's prompt, you should use the tools "
    "available to you to answer the user's question."
)
SEARCH_TOOLS = ("glob", "grep", "ls", "sourcegraph", "view")
OWN = ("sourcegraph", "multiedit", "agentic_fetch", "job_output", "job_kill")
OWN += ("lsp_diagnostics", "lsp_references")


def tools(names: tuple[str, ...]) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {}}
    return [{"type": "function", "function": {"name": n, "parameters": schema}} for n in names]


def title_call(ask: str, system: str = TITLE_SYSTEM) -> dict[str, Any]:
    text = f"Generate a concise title for the following content:\n\n{ask}\n <think>\n\n</think>"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    return {"model": "auto", "messages": messages, "max_tokens": 40, "stream": True}


def test_its_distinctive_tool_names_are_its_harness() -> None:
    assert set(OWN) <= HARNESS_TOOLS


def test_its_search_sub_agent_is_an_agents_session() -> None:
    ask = "Find where sync_dir is defined and explain what it does."
    body = {
        "model": "auto",
        "messages": [{"role": "system", "content": TASK_SYSTEM}, {"role": "user", "content": ask}],
        "tools": tools(SEARCH_TOOLS),
    }
    assert view(body).agent_tools
    assert classify(body).label == "coding"


@pytest.mark.parametrize(
    "ask",
    [
        "explain what sync_dir does",
        "write unit tests for build_parser",
        "why does main() return 0 even when the upload fails?",
    ],
)
def test_its_title_call_reads_the_ask_inside(ask: str) -> None:
    shown = view(title_call(ask))
    assert shown.latest == ask
    assert classify(title_call(ask)).label == "coding"


def test_a_title_call_of_a_prose_ask_stays_prose() -> None:
    assert view(title_call("write a haiku about autumn leaves")).latest == (
        "write a haiku about autumn leaves"
    )
    assert classify(title_call("write a haiku about autumn leaves")).label == "prose"


def test_the_same_words_in_another_clients_request_are_read_as_they_are() -> None:
    """Only after crush's title prompt: elsewhere a user typed them, and asks them."""
    body = title_call("explain what sync_dir does", system="You are a helpful assistant.")
    assert view(body).latest.startswith("Generate a concise title for the following content")
