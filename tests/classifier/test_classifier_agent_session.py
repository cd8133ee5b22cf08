"""A coding agent's session is coding work unless the ask clearly is not (`rules.session_intent`).

Found in review: typical short asks in a coding agent's session ("write unit tests for
build_parser", "explain what sync_dir does") were read as writing or reasoning and sent to
the cloud, 10 to 13 of 34 in opencode, Continue and Goose, 10 in Claude Code. And an ask
that names a source file is coding there however sure the model is of other work: "add a
main guard to haiku.py" in Kimi CLI's session was prose 0.989, on the cloud (a live review;
`tests/fixtures/kimi-cli-1.51.0.md`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain, rules
from classifier.harness_tools import HARNESS_TOOLS, PLAIN_NAMES
from classifier.intent import INTENTS
from classifier.request import view
from router.config import parse
from router.target import Target, route_for
from router.translate.view import chat_view
from tests.agent_shapes import (
    CLAUDE_MD_REMINDER,
    CLINE_ENVIRONMENT,
    CONTINUE_TOOLS,
    OPENCODE_TOOLS,
    claude_code_body,
    cline_task,
    codex_body,
    continue_agent_body,
    opencode_body,
    user_item,
)


def claude_code(ask: str) -> dict[str, Any]:
    """Claude Code's first turn, the claudeMd reminder before the ask, as the router reads it."""
    parts = [{"type": "text", "text": CLAUDE_MD_REMINDER}, {"type": "text", "text": ask}]
    return chat_view("messages", claude_code_body([{"role": "user", "content": parts}]))


def cline(ask: str) -> dict[str, Any]:
    """Cline's first turn without native tools: its task tag and the editor's state."""
    parts = [{"type": "text", "text": cline_task(ask)}, {"type": "text", "text": CLINE_ENVIRONMENT}]
    return {"model": "auto", "messages": [{"role": "user", "content": parts}]}


def plain(ask: str) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": "user", "content": ask}]}


KIMI_SESSION = Path(__file__).parents[1] / "fixtures/kimi-cli-1.51.0/main-agent-file-ask.json"
KIMI_ASK = "add a main guard to haiku.py"


def kimi_cli(ask: str) -> dict[str, Any]:
    """Kimi CLI's main agent on the third turn of the recorded session (its system prompt,
    its 15 tools, two asks answered through its `Agent` tool), `ask` the latest."""
    body = dict(json.loads(KIMI_SESSION.read_text(encoding="utf-8")))
    assert body["messages"][-1] == {"role": "user", "content": KIMI_ASK}
    body["messages"][-1]["content"] = ask
    return body


AGENTS: dict[str, Callable[[str], dict[str, Any]]] = {
    "opencode": opencode_body,
    "continue": continue_agent_body,
    "claude_code": claude_code,
}
# Asks each agent's session sent to the cloud, read alone as writing or reasoning (0.47 to
# 0.96 across the agents)
CODING_ASKS = [
    "write unit tests for build_parser",
    "write a docstring for main() explaining the exit codes",
    "why does main() return 0 even when the upload fails?",
    "explain what sync_dir does",
    "write a CHANGELOG entry for this change",
]
# Asks that clearly are not coding, in the same sessions
OTHER_ASKS = {
    "write a haiku about autumn leaves": "prose",
    "write a short story about a lighthouse keeper": "prose",
    "what is the integral of x^2 sin x?": "math",
}


@pytest.mark.parametrize("ask", CODING_ASKS)
@pytest.mark.parametrize("agent", AGENTS)
def test_a_coding_agents_short_ask_is_coding(agent: str, ask: str) -> None:
    body = AGENTS[agent](ask)
    intent = classify(body)
    shown = explain(body)
    assert intent.label == "coding" and intent.confidence > 0.5, shown
    if intent.source == "model":  # read as coding at even odds or better: the model's own
        # ("write unit tests for build_parser" in Continue's session, coding 0.56)
        assert (shown["model_intent"], shown["rule"]) == ("coding", None)
        assert shown["top_intents"][0]["probability"] >= 0.5
        return
    assert shown["rule"].startswith("agent_session: an agent's built-in tools offered")
    # the model's reading, shown: other work, or coding less than even (complement NB's term
    # made it so for "write unit tests for build_parser" in most agents' sessions)
    assert shown["model_intent"] in ("writing", "reasoning", "coding")
    assert shown["model_intent"] != "coding" or shown["top_intents"][0]["probability"] < 0.5
    assert (shown["intent"], shown["confidence"]) == ("coding", intent.confidence)


def test_an_agents_text_in_a_user_turn_says_it_is_a_coding_agents_session() -> None:
    """Cline without native tools offers none: its task tag and editor state say so."""
    ask = "write a docstring for main() explaining the exit codes"
    body = cline(ask)
    assert (classify(body).label, classify(body).source) == ("coding", "rule")
    assert explain(body)["rule"].startswith("agent_session: an agent's text in a user turn")
    alone = plain(ask)
    assert (classify(alone).label, classify(alone).source) == ("writing", "model")


@pytest.mark.parametrize("agent", [*AGENTS, "cline"])
@pytest.mark.parametrize("ask", OTHER_ASKS)
def test_an_ask_that_clearly_is_not_coding_stays_what_it_is(agent: str, ask: str) -> None:
    body = {**AGENTS, "cline": cline}[agent](ask)
    intent = classify(body)
    assert (intent.label, intent.source) == (OTHER_ASKS[ask], "model")
    assert explain(body)["rule"] is None


@pytest.mark.parametrize("ask", [*CODING_ASKS, *OTHER_ASKS])
def test_a_plain_prompt_is_read_by_the_model_alone(ask: str) -> None:
    """No agent's tools, no agent's text: the model decides, as before the rule."""
    body = plain(ask)
    shown = explain(body)
    assert (classify(body).source, shown["rule"]) == ("model", None)
    assert classify(body).label == shown["model_intent"]


def test_an_apps_tools_or_a_tool_result_alone_are_no_agents_session() -> None:
    """A file app's tools (the MCP filesystem server's, two of them also Codex's names) and
    a tool result ending the conversation: any app that calls tools sends them."""
    files = [
        {"type": "function", "function": {"name": name}}
        for name in ("read_file", "write_file", "list_directory")
    ]
    weather = {"type": "function", "function": {"name": "get_current_weather"}}
    ask = "write unit tests for build_parser"
    looked_up = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]}
    result = {"role": "tool", "tool_call_id": "c1", "content": "18 C, light rain"}
    for body in (
        {**plain(ask), "tools": files},
        {"messages": [*plain(ask)["messages"], looked_up, result], "tools": [weather]},
    ):
        assert not view(body).agent_tools and not view(body).harness_cut
        assert (classify(body).source, explain(body)["rule"]) == ("model", None)


def test_the_agents_tools_are_theirs() -> None:
    names = {t["function"]["name"] for t in [*OPENCODE_TOOLS, *CONTINUE_TOOLS]}
    generic = {"edit", "write", "read", "list"}  # any app may name its tools so
    assert names - generic <= HARNESS_TOOLS
    assert not generic & HARNESS_TOOLS
    # `task` too, but the OpenHands CLI's sub-agents' tool: one of theirs counted only
    # beside a name no app gives its own (`PLAIN_NAMES`)
    assert "task" in HARNESS_TOOLS & PLAIN_NAMES


def test_a_rule_decided_coding_ask_takes_the_coding_route_whatever_the_default() -> None:
    """Its confidence is above 0.5, and so above `min_confidence` (0.35): an ask the model
    read ambiguously does not fall to the default route, whatever that route is."""
    config = parse(
        {
            "backends": [
                {"name": "local", "tier": "local", "base_url": "http://x/v1", "model": "m"},
                {"name": "cloud", "tier": "cloud", "base_url": "http://y/v1", "model": "m"},
            ],
            "classifier": {"default_route": "writing"},
        }
    )
    for ask in CODING_ASKS:
        intent = classify(opencode_body(ask))
        assert route_for(intent, Target("auto"), config) == "coding"


def _p(**probabilities: float) -> list[float]:
    return [probabilities.get(intent, 0.0) for intent in INTENTS]


AGENT = view(opencode_body("write unit tests for build_parser"))


def test_the_floor_is_on_all_other_work_than_coding_together() -> None:
    """An ask read as half writing and nearly half reasoning is clearly not coding."""
    other = rules.AGENT_FLOOR + 0.01
    assert (
        rules.session_intent(
            AGENT, _p(writing=other / 2 + 0.01, reasoning=other / 2 - 0.01, coding=0.01)
        )
        is None
    )
    below = rules.session_intent(AGENT, _p(writing=0.5, reasoning=0.3, coding=0.2))
    assert below is not None and below[0].label == "coding"


def test_the_confidence_is_above_half_and_rises_with_coding_work() -> None:
    near = rules.session_intent(
        AGENT, _p(reasoning=rules.AGENT_FLOOR - 0.001, coding=1.001 - rules.AGENT_FLOOR)
    )
    far = rules.session_intent(AGENT, _p(reasoning=0.6, coding=0.4))
    assert near is not None and far is not None
    assert 0.5 < near[0].confidence < 0.52
    assert near[0].confidence < far[0].confidence <= 1


def test_the_model_decides_when_it_reads_coding_work_first_at_even_odds() -> None:
    for first in ("coding", "tool_calling", "instruction"):
        assert (
            rules.session_intent(AGENT, _p(**{first: 0.5, "writing": 0.3, "reasoning": 0.2}))
            is None
        )
    assert rules.session_intent(view(plain("hi")), _p(writing=0.5, coding=0.5)) is None


@pytest.mark.parametrize("first", ["coding", "tool_calling", "instruction"])
def test_below_even_odds_the_floors_rule_decides_at_its_confidence(first: str) -> None:
    """Less sure than the rule is of any ask it decides (above 0.5): coding at the rule's
    confidence, the same as when writing is first at the same share of other work."""
    unsure = rules.session_intent(AGENT, _p(**{first: 0.4, "writing": 0.35, "reasoning": 0.25}))
    assert unsure is not None, first
    intent, why = unsure
    assert (intent.label, intent.source) == ("coding", "rule")
    assert why.endswith(f"read 0.600 < 0.95, the model's {first} 0.400 < 0.5")
    same_share = rules.session_intent(AGENT, _p(writing=0.45, reasoning=0.15, coding=0.4))
    assert same_share is not None and intent.confidence == same_share[0].confidence > 0.9


# Found in review: read as other work, an ask was coding by the rule ("explain what sync_dir
# does": reasoning 0.79, coding 0.79 in Claude Code's session); read as coding work, but
# unsure, this one was the model's coding 0.29 in Claude Code's session and tool_calling 0.27
# in Codex's, both below min_confidence (0.35): the default route, whatever that is
READ_CONFIG = "Read the config loader and write a test for it."
EXPLAIN = "explain what sync_dir does"


def codex(ask: str) -> dict[str, Any]:
    """Codex's first turn, with its tools, as the router reads it."""
    return chat_view("responses", codex_body([user_item(ask)]))


SESSIONS: dict[str, Callable[[str], dict[str, Any]]] = {"claude_code": claude_code, "codex": codex}


@pytest.mark.parametrize("agent", SESSIONS)
def test_an_ask_read_as_coding_work_but_unsure_is_no_less_sure_than_one_read_as_other_work(
    agent: str,
) -> None:
    """Coding by the floor's rule, above even odds and above the rule's reading of "explain
    what sync_dir does", so an operator's higher min_confidence or other default route
    does not lose it."""
    body = SESSIONS[agent](READ_CONFIG)
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source) == ("coding", "rule"), shown
    assert shown["rule"].startswith("agent_session: an agent's built-in tools offered")
    assert shown["model_intent"] in ("coding", "tool_calling")  # coding work, shown
    assert shown["top_intents"][0]["probability"] < 0.5
    assert intent.confidence > 0.5
    explained = classify(SESSIONS[agent](EXPLAIN))
    assert explained.source == "rule" and intent.confidence > explained.confidence
    config = parse(
        {
            "backends": [
                {"name": "local", "tier": "local", "base_url": "http://x/v1", "model": "m"},
                {"name": "cloud", "tier": "cloud", "base_url": "http://y/v1", "model": "m"},
            ],
            "classifier": {"default_route": "writing", "min_confidence": 0.5},
        }
    )
    assert route_for(intent, Target("auto"), config) == "coding"


@pytest.mark.parametrize("agent", SESSIONS)
def test_a_tool_request_the_model_reads_surely_stays_tool_calling(agent: str) -> None:
    """A call of the agent's shell ("run the tests"), tool_calling 0.79 to 0.80 by the
    model: no unsure reading, so the rule does not make it coding."""
    body = SESSIONS[agent]("run the tests")
    intent, shown = classify(body), explain(body)
    assert (intent.label, intent.source, shown["rule"]) == ("tool_calling", "model", None)
    assert intent.confidence >= 0.5


def test_an_ask_naming_a_source_file_in_kimi_clis_session_is_coding() -> None:
    """The recorded request: the model reads "haiku" (prose, far above the floor), the file
    name says the agent will edit haiku.py."""
    body = kimi_cli(KIMI_ASK)
    intent = classify(body)
    shown = explain(body)
    assert (intent.label, intent.source, intent.confidence) == ("coding", "rule", 0.9)
    assert shown["rule"] == (
        "agent_session: an agent's built-in tools offered, and the ask names a source file: "
        "haiku.py"
    )
    assert shown["model_intent"] == "prose"
    assert shown["top_intents"][0]["probability"] >= rules.AGENT_FLOOR


# Asks the model reads as prose or math at 0.92 to 1.00 in every agent's session, each
# naming a source file (a Chinese ask to Kimi CLI, Moonshot's, among them)
FILE_ASKS = {
    "write a haiku about snow and save it to haiku.py": "haiku.py",
    "write a haiku about snow in src/poems/haiku.ts": "src/poems/haiku.ts",
    "write a haiku about my script deploy.sh": "deploy.sh",
    "what is the integral of x^2 sin x? put it in calc.py": "calc.py",
    "write a haiku about the Makefile": "Makefile",
}


@pytest.mark.parametrize("ask", FILE_ASKS)
@pytest.mark.parametrize("agent", [*AGENTS, "cline", "kimi_cli"])
def test_an_ask_naming_a_source_file_is_coding_in_any_agents_session(agent: str, ask: str) -> None:
    body = {**AGENTS, "cline": cline, "kimi_cli": kimi_cli}[agent](ask)
    intent = classify(body)
    shown = explain(body)
    assert (intent.label, intent.source, intent.confidence) == ("coding", "rule", 0.9), shown
    assert shown["rule"].endswith(f", and the ask names a source file: {FILE_ASKS[ask]}")
    assert shown["model_intent"] in ("prose", "math")


def test_a_chinese_ask_names_its_file_among_chinese_words() -> None:
    body = kimi_cli("给haiku.py加一个main guard")
    assert (classify(body).label, classify(body).source) == ("coding", "rule")
    assert explain(body)["rule"].endswith("names a source file: haiku.py")


# In Kimi CLI's session, asks the model reads as prose at 0.99 or more that name no source
# file: a version, a domain, abbreviations, a library's name, prose and data files, a
# sentence ending before "py"
NO_FILE_ASKS = [
    "write a haiku about snow",
    "write a haiku about snow for version 3.11",
    "write a haiku about the snow on example.com",
    "write a haiku about the web site www.gob.py",
    "write a haiku about snow, e.g. its silence.",
    "write a haiku about snow in 300 b.c.",
    "write a haiku about Node.js",
    "write a haiku about notes.md",
    "write a haiku about data.csv",
    "write a haiku and save it in poem.txt",
    "write a poem about the ocean. py is my favourite word",
    *OTHER_ASKS,
]


@pytest.mark.parametrize("ask", NO_FILE_ASKS)
def test_an_ask_naming_no_source_file_stays_what_the_model_reads(ask: str) -> None:
    body = kimi_cli(ask)
    shown = explain(body)
    assert (classify(body).label, classify(body).source) == (shown["model_intent"], "model")
    assert shown["model_intent"] in ("prose", "math") and shown["rule"] is None


@pytest.mark.parametrize("ask", [KIMI_ASK, *FILE_ASKS])
def test_a_file_name_outside_an_agents_session_decides_nothing(ask: str) -> None:
    """A chat app's user writing a haiku about their script: the model's reading stands,
    typed alone or under a chat app's system prompt."""
    system = {"role": "system", "content": "You are a helpful assistant."}
    for body in (plain(ask), {**plain(ask), "messages": [system, *plain(ask)["messages"]]}):
        shown = explain(body)
        assert (classify(body).source, shown["rule"]) == ("model", None)
        assert classify(body).label == shown["model_intent"] in ("prose", "math")


KIMI_PLAIN = ["SearchWeb", "FetchURL", "ReadFile", "WriteFile", "Shell"]


@pytest.mark.parametrize("count", [3, 5])
def test_kimi_clis_plain_names_alone_are_no_agents_session(count: int) -> None:
    """Shell, ReadFile, WriteFile, SearchWeb and FetchURL are Kimi CLI's, but any app may
    name its tools so: offered alone, a research app's made "Summarise the main causes of
    World War I." coding 0.92 by the agent session's rule (found in review). Beside a name
    of an agent's that is none of them (Kimi CLI's StrReplaceFile, the Glob and Grep of its
    read-only subagents), they count."""
    tools = [{"type": "function", "function": {"name": n}} for n in KIMI_PLAIN[:count]]
    body = {**plain("Summarise the main causes of World War I."), "tools": tools}
    assert not view(body).agent_tools and not view(body).harness_cut
    assert explain(body)["rule"] is None
    for sign in ("StrReplaceFile", "Glob"):
        signed = [*tools[:2], {"type": "function", "function": {"name": sign}}]
        assert view({**body, "tools": signed}).agent_tools
