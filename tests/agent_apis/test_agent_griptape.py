"""Griptape's system prompt decides no ask, and its tools are asked for by their names'
parts (`classifier.griptape`, `classifier.tool_parts`).

Griptape 1.13.0 opens an agent's system prompt with its own sentences on executing actions
when tools are offered, and names each tool's activity `<Tool>_<activity>`. "What is 1234 *
5678? Use the calculator." with its CalculatorTool went math 0.675 to the cloud on both
turns of its tool loop (found in a live review). The bodies are the ones it sent
(`tests/fixtures/griptape-1.13.0.md`); real sockets, the official SDK, the simulators as
backends.
"""

from __future__ import annotations

import pytest

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter
from tests.recorded import FIXTURES, loader

recorded = loader(FIXTURES / "griptape-1.13.0")
RULES_READ = "Style\nAlways answer as concise Python code with comments.\nNever use markdown."


@pytest.mark.parametrize("name", ["calculator-turn1.json", "calculator-turn2.json"])
def test_the_calculator_asked_for_is_served_locally(
    default_proxy: RunningRouter, name: str
) -> None:
    body = recorded(name)
    plan = explained(default_proxy, body)
    assert plan["classifier"]["read"]["system_chars"] == 0
    assert plan["classifier"]["rule"] == (
        "tools offered and asks for an offered tool by its name's part: calculator"
    )
    assert served(default_proxy, body) == ("tool_calling", "local")


def test_the_rulesets_are_read_without_griptapes_sentences(default_proxy: RunningRouter) -> None:
    body = recorded("rulesets.json")
    assert explained(default_proxy, body)["classifier"]["read"]["system_chars"] == len(RULES_READ)
    assert served(default_proxy, body) == ("math", "cloud")
