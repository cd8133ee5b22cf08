"""Griptape's system prompt on the classifier's view alone (`classifier.griptape`): its
sentences on actions unread, the user's rulesets read. The recorded bodies go through the
router in `tests/agent_apis/test_agent_griptape.py`.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.griptape import (
    ACTIONS_END,
    ACTIONS_OPENING,
    META_OPENING,
    RULESETS_OPENING,
    TOOL_TASK_OPENING,
    system_words,
)
from classifier.request import view
from tests.recorded import FIXTURES, loader, with_system

recorded = loader(FIXTURES / "griptape-1.13.0")
RULESETS = (
    "\nWhen responding, always use rules from the following rulesets.\n\nRuleset name: Style\n"
    '"Style" rules:\nRule #1\nAlways answer as concise Python code with comments.\n'
    "Rule #2\nNever use markdown."
)
RULES_READ = "Style\nAlways answer as concise Python code with comments.\nNever use markdown."


def without_system(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "messages": body["messages"][1:]}


def test_griptapes_texts_are_the_ones_it_sends() -> None:
    """The texts `classifier.griptape` matches, in the bodies griptape 1.13.0 sent: the
    prompt task's actions block, its rulesets (`templates/rulesets/rulesets.j2`)."""
    prompt = recorded("calculator-turn1.json")["messages"][0]["content"]
    assert prompt.startswith(ACTIONS_OPENING) and prompt.endswith(ACTIONS_END)
    assert recorded("rulesets.json")["messages"][0]["content"] == RULESETS
    assert RULESETS_OPENING in RULESETS


@pytest.mark.parametrize(
    "name", ["calculator-turn1.json", "calculator-turn2.json", "datetime-turn1.json"]
)
def test_the_actions_block_is_not_read(name: str) -> None:
    """Read, the block made "What is 1234 * 5678? Use the calculator." math 0.675 where
    under no prompt it is 0.508, and a poem prose 0.993 where alone it is 0.996: the
    request reads as with no system prompt at all."""
    body = recorded(name)
    assert view(body).system == ""
    assert view(body)._replace(system="") == view(without_system(body))
    if name == "datetime-turn1.json":  # no rule: the model's reading, unmoved by the block
        assert classify(body) == classify(without_system(body))


def test_the_calculator_asked_for_is_tool_calling_on_both_turns() -> None:
    """Both turns of griptape's tool loop were math 0.675, on the cloud (found in a live
    review); "Use the calculator." asks for `CalculatorTool_calculate` by its name's part
    (`classifier.tool_parts`)."""
    for name in ("calculator-turn1.json", "calculator-turn2.json"):
        assert classify(recorded(name)).label == "tool_calling"
        assert classify(recorded(name)).source == "rule"


def test_the_rulesets_are_read_without_griptapes_lines() -> None:
    assert view(recorded("rulesets.json")).system == RULES_READ


@pytest.mark.parametrize(
    ("prompt", "read"),
    [
        # tools in text (`use_native_tools=False`): the actions' format inside the block
        (
            f"{ACTIONS_OPENING}\nYou must use the following format when executing actions:\n\n"
            'Thought: <...>\nActions: <JSON array of actions that MUST follow this schema: {"a":'
            " 1}>\n<|Response|>: <action outputs>\n\n" + ACTIONS_END + RULESETS,
            RULES_READ,
        ),
        # meta memory, then the rulesets
        (f'{ACTIONS_OPENING}{ACTIONS_END}\n\n\n{META_OPENING}\n{{"a": 1}}\n{RULESETS}', RULES_READ),
        (f'{ACTIONS_OPENING}{ACTIONS_END}\n\n\n{META_OPENING}\n{{"a": 1}}', ""),
        # a ToolTask's, with tools in text
        (
            f"{TOOL_TASK_OPENING}\n\nThe schema is provided below:\nAction Schema: {{}}\n"
            + RULESETS,
            RULES_READ,
        ),
    ],
)
def test_each_of_griptapes_prompts_is_read_without_its_sentences(prompt: str, read: str) -> None:
    assert system_words(prompt) == read


@pytest.mark.parametrize(
    "prompt",
    [
        "You are a tax assistant." + RULESETS,
        f"Be brief.\n{ACTIONS_OPENING}{ACTIONS_END}",
        ACTIONS_OPENING + "Answer in French.",  # the block's last line never comes
    ],
)
def test_a_prompt_not_opening_as_griptapes_is_read_as_sent(prompt: str) -> None:
    body = with_system(recorded("rulesets.json"), prompt)
    assert view(body).system == prompt[:300]
