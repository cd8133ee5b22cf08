"""An app's own tools named by the plain words coding agents also name theirs (Claude Code's
Read, Write, Edit, Task, Monitor, Workflow, Artifact, TaskCreate...; Codex's shell) make no
agent's session alone (`classifier.harness_tools.PLAIN_NAMES`).

Found in review: a note-taking assistant offering Read, Write, Edit and Search read
"Summarise the main causes of World War I." as coding 0.93 by `agent_session`, served
locally, where the same request with read_note, write_note, edit_note and search_notes was
writing 0.56, on the cloud; a project bot's Task, Monitor and Workflow made "Draft a kickoff
email for the spring campaign." coding, a writing app's Write, Edit and Artifact "Is it
better to rent or buy a house?" coding 0.90.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.harness_tools import HARNESS_TOOLS, PLAIN_NAMES
from classifier.request import view

WWI = "Summarise the main causes of World War I."
# Apps of other kinds, their tools named as coding agents name some of theirs
APPS = {
    "notes": ["Read", "Write", "Edit", "Search"],
    "project bot": ["Task", "Monitor", "Workflow"],
    "task tracker": ["TaskCreate", "TaskList", "TaskUpdate", "TaskGet"],
    "writing app": ["Write", "Edit", "Artifact"],
    "research app": ["WebSearch", "WebFetch", "Read"],
    "scheduler": ["CronCreate", "CronList", "CronDelete", "PushNotification"],
    "team chat": ["SendMessage", "ListAgents", "TeamCreate", "AskUserQuestion"],
    "ops console": ["shell", "terminal", "read_file", "send_message", "view_image"],
}
# Names of a coding agent's own machinery, each of which counts alone
SIGNS = ["Glob", "TodoWrite", "BashOutput", "MultiEdit", "apply_patch", "update_plan"]


def app(names: list[str], ask: str = WWI) -> dict[str, Any]:
    tools = [{"type": "function", "function": {"name": n, "description": "x"}} for n in names]
    messages = [
        {"role": "system", "content": "You are a helpful assistant inside our app."},
        {"role": "user", "content": ask},
    ]
    return {"model": "auto", "messages": messages, "tools": tools}


@pytest.mark.parametrize("names", APPS.values(), ids=list(APPS))
def test_an_apps_plain_tool_names_are_no_agents_session(names: list[str]) -> None:
    """Read as the ask alone, and its tools can be named ("use the Edit tool")."""
    body = app(names)
    seen = view(body)
    assert (seen.agent_tools, seen.harness_cut) == (False, False)
    assert seen.tool_names == " ".join(names)
    assert (classify(body).source, explain(body)["rule"]) == ("model", None)
    assert classify(body).label == explain(body)["model_intent"] != "coding"
    named = app(names, f"Use the {names[0]} tool on my first item.")
    assert (classify(named).label, classify(named).source) == ("tool_calling", "rule")


@pytest.mark.parametrize("sign", SIGNS)
def test_beside_a_name_of_an_agents_own_they_count(sign: str) -> None:
    for names in (["Read", "Write", sign], ["Task", "Workflow", sign], ["shell", sign, "Edit"]):
        seen = view(app(names))
        assert (seen.agent_tools, seen.tool_names) == (True, "")


# The fewest of its tools each agent offers, as recorded or documented: each has a name of
# its own machinery among them
SMALLEST = {
    # `claude -p` 2.1.332, its other tools deferred (tests/fixtures/claude-code-2.1.332)
    "claude code, deferred": ["Bash", "Edit", "DeferredToolPlaceholder", "Read"],
    "claude code, Explore": ["Bash", "Glob", "Grep", "Read", "WebFetch", "WebSearch"],
    "codex, no apply_patch": ["shell", "update_plan", "view_image"],
    "openhands sdk": ["terminal", "file_editor", "task_tracker", "finish", "think"],
    "openhands gemini preset": [
        *("terminal", "read_file", "write_file", "edit", "list_directory", "task_tracker"),
    ],
    "openhands gpt5 preset": ["terminal", "task_tracker", "apply_patch"],
    "cn --readonly": [
        *("Read", "List", "Bash", "Fetch", "Checklist", "CheckBackgroundJob", "AskQuestion"),
    ],
    "kimi cli plan": ["ReadFile", "Glob", "Grep", "FetchURL"],
    "cline cli --yolo": ["read_files", "run_commands", "submit_and_exit", "editor"],
    "qwen code": ["send_message", "read_file", "grep_search", "glob"],
}


@pytest.mark.parametrize("names", SMALLEST.values(), ids=list(SMALLEST))
def test_each_agents_smallest_toolset_is_still_its_session(names: list[str]) -> None:
    assert view(app(names)).agent_tools


def test_the_plain_names_are_agents_names() -> None:
    """A plain name that is no agent's would be a typo, and count for nothing."""
    assert PLAIN_NAMES <= HARNESS_TOOLS
