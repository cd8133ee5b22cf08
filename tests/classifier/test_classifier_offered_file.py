"""An ask that names a source file, with tools offered, is coding outside a known coding
agent's session too (`rules.offered_file_intent`).

Found live: open-codex offers one tool, `shell`, which names no coding agent
(`classifier.harness_tools.PLAIN_NAMES`), so its requests were no agent's session and the
model read them alone: "Explain what calc.py does." was reasoning 0.89 (by "explain" and
"does"; the file name was only the word "py") and went to the cloud. With no tools offered
the same words are a chat app's question, and the model's reading stands.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.request import view

# A coding agent's one tool, as open-codex offers it (a command's argv, a working directory)
SHELL = {
    "type": "function",
    "function": {
        "name": "shell",
        "description": "Runs a shell command, and returns its output.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "array", "items": {"type": "string"}},
                "workdir": {"type": "string"},
                "timeout": {"type": "number"},
            },
            "required": ["command"],
        },
    },
}
SYSTEM = "You are a terminal-based coding assistant. Be precise, safe, and helpful."
# Asks the model reads as other work than coding (reasoning 0.89 to 0.97, writing 0.80),
# each naming a source file
FILE_ASKS = {
    "Explain what calc.py does.": "calc.py",
    "Why does src/app.ts crash on startup?": "src/app.ts",
    "Summarise main.rs": "main.rs",
}


def asked(ask: str, **extra: Any) -> dict[str, Any]:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ask}]
    return {"model": "auto", "messages": messages, **extra}


@pytest.mark.parametrize("ask", FILE_ASKS)
def test_an_ask_naming_a_source_file_with_a_shell_offered_is_coding(ask: str) -> None:
    body = asked(ask, tools=[SHELL])
    assert not view(body).agent_tools and not view(body).harness_cut  # no agent's session
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source, intent.confidence) == ("coding", "rule", 0.9), shown
    assert shown["rule"] == (
        f"tools_offered: tools offered, and the ask names a source file: {FILE_ASKS[ask]}"
    )
    assert shown["model_intent"] in ("reasoning", "writing")


def test_an_ask_the_model_reads_as_coding_stays_the_models() -> None:
    """ "What does utils/parse.go return for an empty string?" is coding 0.98 by the model:
    no rule is needed, and none is named."""
    body = asked("What does utils/parse.go return for an empty string?", tools=[SHELL])
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source, shown["rule"]) == ("coding", "model", None)


@pytest.mark.parametrize("ask", FILE_ASKS)
def test_with_no_tools_offered_a_file_name_decides_nothing(ask: str) -> None:
    """A chat app's question about a file: typed alone, under a system prompt, or with
    tools offered but `tool_choice: "none"`, the model's reading stands."""
    bodies = [
        {"model": "auto", "messages": [{"role": "user", "content": ask}]},
        asked(ask),
        asked(ask, tools=[SHELL], tool_choice="none"),
    ]
    for body in bodies:
        intent, shown = classify(body), explain(body)
        assert (intent.source, shown["rule"]) == ("model", None)
        assert intent.label == shown["model_intent"] in ("reasoning", "writing")


@pytest.mark.parametrize(
    ("ask", "label"),
    [
        ("Summarise the main causes of World War I.", "writing"),  # no file named
        ("summarise the reviews in reviews.json", "instruction"),  # a data file is no source
        ("run the tests in test_calc.py", "tool_calling"),  # coding work read stays
    ],
)
def test_with_a_shell_offered_other_asks_stay_the_models(ask: str, label: str) -> None:
    body = asked(ask, tools=[SHELL])
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source, shown["rule"]) == (label, "model", None)


def test_an_ask_for_the_offered_tool_by_name_is_still_a_tool_call() -> None:
    body = asked("use the shell tool to cat calc.py", tools=[SHELL])
    intent = classify(body)
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert explain(body)["rule"].endswith("asks for an offered tool by its name: shell")
