"""The prompt the simulator writes for a subagent (`delegation.handed`): the task, its file
names and layout kept, naming no tool that starts a subagent as the simulator reads a name
(`asked_tool.asked_index`, one reader for both: `asked_tool.named_spans`).

Found in review: `handed` read names its own way, so "Have a subAgent review calc.py" still
named `Agent` to `asked_index` and each subagent started another; it cut file names
("review agent.py and agent_registry.py" became "review .py and"), joined every line into
one, and handed "Use the tool to have a", not the task."""

from __future__ import annotations

import itertools

import pytest

from router.simulator.asked_tool import asked_index
from router.simulator.delegation import handed

# the delegating tools of Claude Code, opencode/OpenHands/deepagents, VoltAgent, Qwen Code
NAMES = [["Agent"], ["task"], ["delegate_task"], ["agent"], ["Agent", "task"]]
OPENINGS = [
    "Use the {} tool to have a subagent",
    "Please use {} to",
    "Have an {}",
    "Use the {}'s help:",
    "I want you to use the {} tool and",
    "{}:",
    "Spin up a {} to",
    "",
]
SPELLINGS = ["{}", "{upper}", "{lower}", "`{}`", "the {} tool", "{}'s", "({})"]
TASKS = [
    "look through calc.py and summarize it",
    "review agent.py and agent_registry.py",
    "check why my-agent/agent-config.yaml fails",
    "relire agentów.py",
    "explain the User-Agent header",
    "fix task_runner.py and delegate-task.ts",
    "have a subAgent run the AgentTool on calc.py",
    "step 1\n    indented step 2",
    "then ask the {} again, and once more the {}",
]


def spelled(template: str, name: str) -> str:
    return template.format(name, upper=name.upper(), lower=name.lower())


def asks() -> list[tuple[list[str], str]]:
    found = []
    for names, opening, spelling, task in itertools.product(NAMES, OPENINGS, SPELLINGS, TASKS):
        for name in names:
            mention = spelled(spelling, name)
            found.append((names, f"{opening.format(mention)} {task.format(mention, mention)}"))
    return found


def test_what_it_hands_names_no_delegating_tool() -> None:
    """Over every ask of the mixes above (camel, upper and lower case, glued, possessive,
    quoted, in file names and paths): `asked_index` finds no delegating tool in it."""
    for names, ask in asks():
        assert asked_index(names, handed(ask, names)) is None, (names, ask)


@pytest.mark.parametrize(
    "ask",
    [
        "explain the User-Agent header",
        "fix task_runner.py",
        "review agent.py and agent_registry.py",
        "check why my-agent/agent-config.yaml fails",
        "relire agentów.py",
        "Have a subAgent review calc.py",
        "Spin up an AgentTool run on calc.py",
        "step 1\n    indented\n\n\tstep 2",
    ],
)
def test_an_ask_naming_no_delegating_tool_is_handed_as_written(ask: str) -> None:
    """A name inside a file's name, a path or an identifier names no tool: nothing is cut,
    and the lines and indents stay."""
    assert asked_index(["Agent", "task"], ask) is None
    assert handed(ask, ["Agent", "task"]) == ask


@pytest.mark.parametrize(
    ("ask", "names", "task"),
    [
        (
            "Use the Agent tool to have a subagent look through calc.py and summarize it",
            ["Agent"],
            "look through calc.py and summarize it",
        ),
        (
            "Use the Agent tool: review agent.py and agent_registry.py",
            ["Agent"],
            "review agent.py and agent_registry.py",
        ),
        (
            "Have an Agent check why my-agent/agent-config.yaml fails",
            ["Agent"],
            "check why my-agent/agent-config.yaml fails",
        ),
        ("Delegate task: review delegate-task.ts", ["delegate_task"], "review delegate-task.ts"),
        (
            "Fix the bug.\nUse the task tool to run the tests:\n  pytest -q\n",
            ["task"],
            "Fix the bug.\nrun the tests:\n  pytest -q\n",
        ),
        (
            "Review calc.py with the Agent tool, then report",
            ["Agent"],
            "Review calc.py with, then report",
        ),
    ],
)
def test_the_task_is_handed_without_the_instruction_to_delegate(
    ask: str, names: list[str], task: str
) -> None:
    assert handed(ask, names) == task
