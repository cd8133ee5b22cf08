"""An ask that names a source file, with tools offered, is coding outside a known coding
agent's session too (`rules.offered_file_intent`).

Found live: open-codex offers one tool, `shell`, which names no coding agent
(`classifier.harness_tools.PLAIN_NAMES`), so its requests were no agent's session and the
model read them alone: "Explain what calc.py does." was reasoning 0.89 (by "explain" and
"does"; the file name was only the word "py") and went to the cloud. With no tools offered
the same words are a chat app's question, and the model's reading stands. So they are with a
chat app's web tools offered, which open no file (found in review: with `web_search` or
`fetch_url`, "write a haiku about my script deploy.sh" and a link written without its scheme,
"paulgraham.com/greatwork.html", were coding 0.90).
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.request import view
from tests.agent_shapes.open_codex import SHELL

SYSTEM = "You are a terminal-based coding assistant. Be precise, safe, and helpful."
# A chat app's web tools: neither opens a file
WEB_SEARCH = {
    "type": "function",
    "function": {
        "name": "web_search",
        "description": "Search the web for current information.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
}
FETCH_URL = {
    "type": "function",
    "function": {
        "name": "fetch_url",
        "description": "Fetch a web page.",
        "parameters": {"type": "object", "properties": {"url": {"type": "string"}}},
    },
}
# Asks the model reads as other work than coding (reasoning 0.89 to 0.97, writing 0.80),
# each naming a source file
FILE_ASKS = {
    "Explain what calc.py does.": "calc.py",
    "Why does src/app.ts crash on startup?": "src/app.ts",
    "Summarise main.rs": "main.rs",
}


def asked(ask: str, system: str = SYSTEM, **extra: Any) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": ask}]
    return {"model": "auto", "messages": messages, **extra}


@pytest.mark.parametrize("ask", FILE_ASKS)
def test_an_ask_naming_a_source_file_with_a_shell_offered_is_coding(ask: str) -> None:
    body = asked(ask, tools=[SHELL])
    assert not view(body).agent_tools and not view(body).harness_cut  # no agent's session
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source, intent.confidence) == ("coding", "rule", 0.9), shown
    assert shown["rule"] == (
        f"tools_offered: a shell or file tool offered, and the ask names a source file: "
        f"{FILE_ASKS[ask]}"
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


def tool(name: str, *parameters: str) -> dict[str, Any]:
    properties = {parameter: {"type": "string"} for parameter in parameters}
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"properties": properties}},
    }


@pytest.mark.parametrize(
    "offered",
    [
        tool("read_file", "path"),  # the MCP filesystem server's
        tool("ReadFile", "path"),  # PascalCase
        tool("list_directory"),  # by its name alone
        tool("run_terminal_cmd"),
        tool("workspace", "file_path"),  # by a parameter alone
        tool("sandbox", "argv"),
        tool("str_replace_editor", "command", "path"),
    ],
)
def test_any_file_or_shell_tool_counts(offered: dict[str, Any]) -> None:
    body = asked("Explain what calc.py does.", tools=[WEB_SEARCH, offered])
    intent = classify(body)
    assert (intent.label, intent.source) == ("coding", "rule")
    assert view(body).file_tools


@pytest.mark.parametrize(
    "ask",
    [
        "Summarize the article at bbc.co.uk/news/world-europe-123.html",
        "Summarise this page for me: en.wikipedia.org/wiki/index.php",
        "Write a short review of the essay at paulgraham.com/greatwork.html",
    ],
)
@pytest.mark.parametrize(
    "offered", [WEB_SEARCH, FETCH_URL, SHELL], ids=["search", "fetch", "shell"]
)
def test_a_link_without_its_scheme_is_no_source_file(ask: str, offered: dict[str, Any]) -> None:
    """A dotted host before the first "/" is a web address: with any tool offered, a shell
    too, the ask is the model's (writing)."""
    body = asked(ask, system="You are a helpful assistant.", tools=[offered])
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source, shown["rule"]) == ("writing", "model", None)


@pytest.mark.parametrize(
    "ask",
    [
        "write a haiku about my script deploy.sh",
        "Write a poem about config.yaml",
        "Is Paste.rs down?",
        "What is docs.rs?",
        "Write a blog post comparing Leaflet.js and Mapbox",
        "Is Solid.js more popular than Svelte?",
        *FILE_ASKS,
    ],
)
@pytest.mark.parametrize("offered", [WEB_SEARCH, FETCH_URL], ids=["search", "fetch"])
def test_with_web_tools_alone_a_file_name_decides_nothing(
    ask: str, offered: dict[str, Any]
) -> None:
    """A chat app's web search or fetch opens no file: the model's reading stands, as with
    no tools offered."""
    body = asked(ask, system="You are a helpful assistant.", tools=[offered])
    intent, shown = classify(body), explain(body)
    assert (intent.source, shown["rule"]) == ("model", None)
    assert intent.label == shown["model_intent"] != "coding"
    assert not view(body).file_tools


def test_with_a_shell_offered_creative_work_about_a_file_is_coding_too() -> None:
    """The rule decides whatever other work the model reads, as in an agent's session: the
    model's confidence cannot tell the haiku (prose 0.99) from an edit of haiku.py (prose
    0.96, by "haiku"), which must reach the file (`rules.offered_file_intent`)."""
    for ask in ("write a haiku about my script deploy.sh", "add a main guard to haiku.py"):
        body = asked(ask, tools=[SHELL])
        intent, shown = classify(body), explain(body)
        assert (intent.label, intent.source, shown["model_intent"]) == ("coding", "rule", "prose")
