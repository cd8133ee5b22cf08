"""Side requests (`classifier.side_request`): an app's title calls and background tasks are
marked, read by their ask inside, and nothing else is. Claude Code's title request, as it
reaches the router directly (Messages) and through claude-code-router (chat, its system
blocks as parts), in 2.1.197's wording and in 2.1.337's; the other apps' from their recorded
or templated bodies."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain
from classifier.crush import TITLE_OPENING, TITLE_SYSTEM_END, TITLE_TAIL
from router.translate.view import chat_view
from tests.open_webui_tasks import HISTORY_TASKS, task_body

FIXTURES = Path(__file__).parents[1] / "fixtures"
CLAUDE_CODE = FIXTURES / "claude-code-2.1.197"
ASK = "Translate 'good morning, how are you?' into French."
# Each version's recorded title request, and the ask its session was started with
TITLES = {
    "2.1.197": (CLAUDE_CODE / "title.json", ASK),
    "2.1.337": (
        FIXTURES / "claude-code-2.1.337" / "title.json",
        "Write a Python function that reverses a string.",
    ),
}
ATTRIBUTION = "x-anthropic-billing-header:"
# Claude Code 2.1.332's security monitor's requests in auto mode, and their transcript's ask
MONITOR = {
    stage: FIXTURES / "claude-code-2.1.332" / f"monitor-{stage}.json"
    for stage in ("stage1", "stage2")
}
MONITOR_ASK = "Run the test suite with pytest and tell me what fails."


def recorded(path: Path) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return body


def title_body(version: str = "2.1.197") -> dict[str, Any]:
    """Claude Code `version`'s recorded title request (Messages), its session's ask `ASK`."""
    path, ask = TITLES[version]
    body = recorded(path)
    text = body["messages"][0]["content"][0]
    assert text["text"].startswith(f"<session>\n{ask}\n</session>\n\nWrite the title in")
    text["text"] = text["text"].replace(ask, ASK)
    return body


def claude_code_title(version: str = "2.1.197") -> dict[str, Any]:
    """Claude Code's title request as the classifier reads it: translated to chat."""
    return chat_view("messages", title_body(version))


def through_gateway(version: str = "2.1.197") -> dict[str, Any]:
    """The same request as claude-code-router sends it on chat (recorded alike for 2.1.197):
    its system blocks as text parts, the attribution block first, no `output_config`."""
    body = title_body(version)
    attribution = f"{ATTRIBUTION} cc_version={version}.68e; cc_entrypoint=sdk-cli;"
    blocks = [b for b in body["system"] if not b["text"].startswith(ATTRIBUTION)]
    parts = [{"type": "text", "text": block["text"]} for block in blocks]
    system = [{"type": "text", "text": attribution}, *parts]
    messages = [{"role": "system", "content": system}, *body["messages"]]
    return {"model": "auto", "max_tokens": 64000, "stream": True, "messages": messages}


def monitor_body(stage: str, ask: str = MONITOR_ASK) -> dict[str, Any]:
    """Claude Code's recorded security monitor request of `stage` (Messages), its transcript's
    ask `ask`."""
    body = recorded(MONITOR[stage])
    entry = body["messages"][0]["content"][2]
    assert entry["text"] == json.dumps({"user": MONITOR_ASK}, separators=(",", ":")) + "\n"
    entry["text"] = json.dumps({"user": ask}, separators=(",", ":")) + "\n"
    return body


def claude_code_monitor(stage: str, ask: str = MONITOR_ASK) -> dict[str, Any]:
    """The security monitor's request as the classifier reads it: translated to chat."""
    return chat_view("messages", monitor_body(stage, ask))


def crush_title() -> dict[str, Any]:
    system = "you will generate a short title based on the first message" + TITLE_SYSTEM_END
    text = f"{TITLE_OPENING}{ASK}{TITLE_TAIL}"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    return {"model": "auto", "messages": messages}


# Each framework's call that only picks who does the work (an agent, a plan of its agents, a
# category, a branch), as it sent it
PICKS_WHO = [
    "fast-agent-mcp-0.2.36/router.json",
    "fast-agent-mcp-0.2.36/router-haiku.json",
    "fast-agent-mcp-0.2.36/plan-full.json",
    "fast-agent-mcp-0.2.36/plan-iterative.json",
    "mcp-agent-0.2.6/router.json",
    "mcp-agent-0.2.6/intent-classifier.json",
    "n8n-2.41.1/classifier-chat.json",
]
# The same frameworks' other calls: the work itself (an evaluation, a refinement, a synthesis,
# a fan-in, an extraction, a sentiment, a reply fixed up), which may pin
THE_WORK = [
    "fast-agent-mcp-0.2.36/evaluate.json",
    "fast-agent-mcp-0.2.36/refine.json",
    "fast-agent-mcp-0.2.36/synthesize.json",
    "fast-agent-mcp-0.2.36/critic.json",
    "mcp-agent-0.2.6/fan-in.json",
    "n8n-2.41.1/extractor-chat.json",
    "n8n-2.41.1/sentiment-chat.json",
    "n8n-2.41.1/fixup-chat.json",
]

SIDE = {
    "claude-code": claude_code_title,
    "claude-code-through-ccr": through_gateway,
    "claude-code-2.1.337": lambda: claude_code_title("2.1.337"),
    "claude-code-2.1.337-through-ccr": lambda: through_gateway("2.1.337"),
    **{
        f"claude-code-monitor-{stage}": lambda stage=stage: claude_code_monitor(stage)
        for stage in MONITOR
    },
    "crush": crush_title,
    "openhands": lambda: recorded(FIXTURES / "openhands-sdk-1.58.2" / "title-call.json"),
    "opencode": lambda: recorded(FIXTURES / "opencode-1.18.33" / "title-call.json"),
    **{
        f"open-webui-{task}": lambda task=task: task_body(task, [("user", ASK), ("assistant", "x")])
        for task in HISTORY_TASKS
    },
    # a framework's calls that pick who does the work: they set no pin of their run
    **{name: lambda name=name: recorded(FIXTURES / name) for name in PICKS_WHO},
    "n8n-2.41.1/classifier-responses.json": lambda: chat_view(
        "responses", recorded(FIXTURES / "n8n-2.41.1" / "classifier-responses.json")
    ),
}


@pytest.mark.parametrize("name", SIDE)
def test_an_apps_side_request_is_marked(name: str) -> None:
    body = SIDE[name]()
    assert classify(body).side_request
    assert explain(body)["side_request"] is True


@pytest.mark.parametrize(
    "body",
    [
        claude_code_title(),
        through_gateway(),
        claude_code_title("2.1.337"),
        through_gateway("2.1.337"),
    ],
    ids=["direct", "ccr", "2.1.337-direct", "2.1.337-ccr"],
)
def test_claude_codes_title_is_read_by_the_ask_inside(body: dict[str, Any]) -> None:
    """Not by its fixed words: "Translate ..." was writing 0.39 read whole. The ask is read
    as an agent's session's, as crush's title call's is: coding by `agent_session`, as the
    session's own turn is."""
    read = explain(body)
    assert read["read"]["latest_chars"] == len(ASK)
    assert (read["intent"], read["source"]) == ("coding", "rule")
    assert read["rule"].startswith("agent_session: an agent's text in a user turn")


@pytest.mark.parametrize("ask", [MONITOR_ASK, ASK])
@pytest.mark.parametrize("stage", MONITOR)
def test_claude_codes_monitor_is_read_by_the_transcripts_ask(stage: str, ask: str) -> None:
    """Not by its instructions: read whole, stage 1 was instruction and stage 2 writing (on
    the cloud). The latest ask in the transcript is read, alone."""
    read = explain(claude_code_monitor(stage, ask))
    assert read["read"]["latest_chars"] == len(ask)
    assert read["side_request"] is True


def test_the_monitors_latest_ask_is_read() -> None:
    """A transcript of several turns: the latest user entry is the ask the action is for."""
    body = claude_code_monitor("stage1")
    parts = body["messages"][1]["content"]
    earlier = {"type": "text", "text": json.dumps({"user": "Write a haiku about rain."}) + "\n"}
    parts.insert(2, earlier)
    assert explain(body)["read"]["latest_chars"] == len(MONITOR_ASK)


def test_a_transcript_line_too_deep_for_json_is_passed_over() -> None:
    """A client's line of `{"user":` and a hundred thousand "[" after the ask: json raised
    RecursionError, the whole request read by the default route and keyed as sent."""
    body = claude_code_monitor("stage1")
    deep = {"type": "text", "text": '{"user":' + "[" * 100_000 + "\n"}
    body["messages"][1]["content"].insert(3, deep)
    assert explain(body)["read"]["latest_chars"] == len(MONITOR_ASK)


def not_claude_codes(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with another system prompt: a user who sends Claude Code's title text."""
    other = copy.deepcopy(body)
    other["messages"][0] = {"role": "system", "content": "You are a helpful assistant."}
    return other


def with_more(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with words of the user's after Claude Code's tail."""
    other = copy.deepcopy(body)
    other["messages"][1]["content"][0]["text"] += "\n\nAnd also write me a poem about it."
    return other


def monitor_conversation() -> dict[str, Any]:
    """The monitor's request continued: its verdict, then its user message again. Claude Code
    asks each check in a request of one user message; a conversation under the monitor's
    prompt is someone's own, its latest message read as sent."""
    body = claude_code_monitor("stage1")
    system, user = body["messages"]
    verdict = {"role": "assistant", "content": "<block>no</block>"}
    return {**body, "messages": [system, user, verdict, copy.deepcopy(user)]}


NOT_SIDE = {
    "claude-code-turn": lambda: chat_view(
        "messages", recorded(CLAUDE_CODE / "translate-turn.json")
    ),
    "claude-code-first-turn": lambda: chat_view(
        "messages", recorded(CLAUDE_CODE / "first-turn.json")
    ),
    "title-text-elsewhere": lambda: not_claude_codes(claude_code_title()),
    "title-text-and-more": lambda: with_more(claude_code_title()),
    "2.1.337-title-text-elsewhere": lambda: not_claude_codes(claude_code_title("2.1.337")),
    "2.1.337-title-text-and-more": lambda: with_more(claude_code_title("2.1.337")),
    "monitor-text-elsewhere": lambda: not_claude_codes(claude_code_monitor("stage1")),
    "monitor-conversation": monitor_conversation,
    "a-chat": lambda: {"messages": [{"role": "user", "content": ASK}]},
    **{name: lambda name=name: recorded(FIXTURES / name) for name in THE_WORK},
}


@pytest.mark.parametrize("name", NOT_SIDE)
def test_other_requests_are_not_side_requests(name: str) -> None:
    body = NOT_SIDE[name]()
    assert not classify(body).side_request
    assert explain(body)["side_request"] is False


def test_a_conversation_under_the_monitors_prompt_is_read_as_sent() -> None:
    """Not by the transcript's ask: its latest message, whole."""
    assert explain(monitor_conversation())["read"]["latest_chars"] > len(MONITOR_ASK) + 100


@pytest.mark.parametrize("version", TITLES)
def test_title_text_outside_claude_codes_request_is_read_whole(version: str) -> None:
    body = not_claude_codes(claude_code_title(version))
    assert explain(body)["read"]["latest_chars"] > len(ASK) + 100


@pytest.mark.parametrize("name", PICKS_WHO)
def test_a_call_that_picks_who_works_is_read_by_its_rule(name: str) -> None:
    """Marked a side request, it is still read, and routed, by its app's rule: instruction,
    on the local model."""
    read = explain(recorded(FIXTURES / name))
    assert (read["intent"], read["source"], read["side_request"]) == ("instruction", "rule", True)
