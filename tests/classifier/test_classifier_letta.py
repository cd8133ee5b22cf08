"""Letta's requests, on the classifier's view and the conversation key alone
(`classifier.letta`): its MemGPT agents' forced `send_message` read as its reply channel, its
own texts in user turns passed over, one agent's conversation one key, its compaction's
summary one kind of work; and where its shapes are a user's. The captured bodies go through
the router in `tests/agent_apis/test_agent_letta.py`.

Found in a live review of the Letta server 0.16.8: every MemGPT agent's turn was tool_calling
by its `tool_choice: "required"` (a poem, prose 0.968 by the model, went local), its
heartbeats were read as the ask, one agent's conversation split when a memory block changed,
and its compaction's summary went where its transcript's words went.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from classifier import classify, explain
from classifier.fixed import MEMORY_SUMMARY_READING
from classifier.letta import ACK, BASE_OPENING, SUMMARY_PROMPTS, TRANSCRIPT_END
from classifier.request import view
from classifier.rules import MEMORY_SUMMARY
from router.conversation import conversation_key
from tests import recorded

FIXTURES = recorded.FIXTURES / "letta-0.16.8"
FIRST = "Hi! My name is Priya and I work as a data engineer in Lisbon."
ISO = (
    "Can you write a Python function that parses an ISO 8601 date string and returns a"
    " timezone-aware datetime?"
)
POEM = "Write a short poem about autumn leaves falling on a quiet street."
MATH = "What is 17% of 2300, and what is the derivative of x^3 * sin(x)?"
# Each MemGPT agent's forced turn, its ask, and the intent the model reads it as
FORCED = {
    "memgpt-v2-code.json": (ISO, "coding"),
    "memgpt-v2-poem.json": (POEM, "prose"),
    "memgpt-v2-math.json": (MATH, "math"),
    "memgpt-poem.json": (POEM, "prose"),
}
HEARTBEAT = (
    '{\n  "type": "heartbeat",\n  "reason": "[This is an automated system message hidden from'
    ' the user] Continuing: continue tool rule.",\n  "time": "2026-12-06 03:40:52 PM UTC+0000"\n}'
)


captured = recorded.loader(FIXTURES)
with_system = recorded.with_system


def test_lettas_texts_are_the_ones_it_sends() -> None:
    """Its agents' system prompts open `BASE_OPENING`; its MemGPT agents force a call with
    `send_message` offered; its compaction sends its prompt, its acknowledgement and the
    transcript's frame."""
    for name in [*FORCED, "memgpt-v2-heartbeat.json", "v1-poem.json"]:
        body = captured(name)
        assert body["messages"][0]["content"].startswith(BASE_OPENING)
        assert "\n<memory_metadata>\n- AGENT_ID: agent-" in body["messages"][0]["content"]
    for name in FORCED:
        body = captured(name)
        assert body["tool_choice"] == "required"
        assert "send_message" in [tool["function"]["name"] for tool in body["tools"]]
    assert captured("v1-poem.json")["tool_choice"] == "auto"
    for name in ("summary-first.json", "summary-compacted.json"):
        system, ack, transcript = captured(name)["messages"]
        assert system["content"].startswith(SUMMARY_PROMPTS[0]) and ack["content"] == ACK
        assert transcript["content"].endswith(TRANSCRIPT_END)


@pytest.mark.parametrize("name", sorted(FORCED))
def test_a_memgpt_agents_forced_reply_is_read_by_its_ask(name: str) -> None:
    """`send_message` is how it answers: the model reads the ask, the login event passed
    over to the first ask (tool_calling 0.97 by the forcing, before)."""
    ask, label = FORCED[name]
    body = captured(name)
    seen = view(body)
    assert (seen.latest, seen.first) == (ask, FIRST)
    assert (seen.tool_forced, seen.reply_channel, seen.harness_cut) == (True, True, False)
    intent = classify(body)
    assert (intent.label, intent.source) == (label, "model")
    assert explain(body)["rule"] is None


def test_a_forced_reply_reads_as_the_default_agents_turn() -> None:
    """The same ask of the default agent (`tool_choice: "auto"`, no `send_message`) and of
    a MemGPT agent: one reading."""
    for memgpt, default in (
        ("memgpt-v2-poem.json", "v1-poem.json"),
        ("memgpt-v2-math.json", "v1-math.json"),
    ):
        assert classify(captured(memgpt)).label == classify(captured(default)).label


def test_heartbeats_are_passed_over_to_the_users_ask() -> None:
    """The latest user message is Letta's heartbeat: the ask before it is read."""
    body = captured("memgpt-v2-heartbeat.json")
    assert body["messages"][-1]["content"].startswith('{\n  "type": "heartbeat"')
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == (FIRST, "", False)
    assert explain(body)["read"]["latest_chars"] == len(FIRST)


def test_after_a_compaction_its_summary_is_no_ask() -> None:
    """The summary Letta put in a user turn (`system_alert`) and the heartbeats after it are
    passed over: the ask is the latest and only one (coding, as the model reads it)."""
    body = captured("memgpt-v2-compacted.json")
    assert json.loads(body["messages"][1]["content"])["type"] == "system_alert"
    seen = view(body)
    assert (seen.latest, seen.first) == (ISO, "")
    assert classify(body).label == "coding"


def test_a_wrapped_user_message_is_read_inside() -> None:
    """An agent's initial messages and Letta's older loop wrap the user's message in JSON
    (`package_user_message`): the message inside is the ask."""
    body = captured("memgpt-v2-poem.json")
    packed = {"type": "user_message", "message": POEM, "time": "2026-12-06 03:40:12 PM UTC+0000"}
    body["messages"][-1]["content"] = json.dumps(packed, indent=2)
    assert view(body).latest == POEM
    assert classify(body).label == "prose"


@pytest.mark.parametrize(
    "choice",
    ["required", {"type": "function", "function": {"name": "send_message"}}],
)
def test_a_choice_of_the_reply_tool_is_the_reply_channel(choice: object) -> None:
    body = captured("memgpt-v2-poem.json")
    body["tool_choice"] = choice
    assert classify(body).label == "prose"


def test_a_choice_of_another_tool_is_a_tool_call() -> None:
    """A tool rule that runs one of its tools first forces a call of that tool: tool
    calling, as anywhere."""
    body = captured("memgpt-v2-poem.json")
    body["tool_choice"] = {"type": "function", "function": {"name": "memory_insert"}}
    intent = classify(body)
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == "tool_choice forces a call"


def test_without_send_message_a_forced_call_is_a_tool_call() -> None:
    body = captured("memgpt-v2-poem.json")
    body["tools"] = [t for t in body["tools"] if t["function"]["name"] != "send_message"]
    assert explain(body)["rule"] == "tool_choice forces a call"


@pytest.mark.parametrize(
    "system",
    [
        "You are a helpful assistant.",
        # Letta's opening without its memory metadata, and its metadata without the opening
        BASE_OPENING + "You are Letta.\n</base_instructions>\n",
        "You are Sam.\n\n<memory_metadata>\n- AGENT_ID: agent-1\n- CONVERSATION_ID: default\n"
        "- System prompt last recompiled: now\n- 0 previous messages between you and the user"
        " are stored in recall memory\n</memory_metadata>",
    ],
)
def test_a_forced_call_in_another_request_stays_tool_calling(system: str) -> None:
    """The same body under a system prompt that is not a Letta agent's: the forcing decides,
    and the login event is a user's text, the first ask."""
    body = with_system(captured("memgpt-v2-poem.json"), system)
    intent = classify(body)
    assert (intent.label, intent.confidence, intent.source) == ("tool_calling", 0.97, "rule")
    assert view(body).first.startswith('{\n  "type": "login"')


@pytest.mark.parametrize("system", [None, "You are a helpful assistant."])
def test_a_heartbeat_shaped_message_elsewhere_is_read_as_written(system: str | None) -> None:
    """A user's own message shaped like Letta's heartbeat, in another app's chat: the ask."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": HEARTBEAT}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    body = {"model": "auto", "messages": messages}
    assert view(body).latest == HEARTBEAT
    assert explain(body)["read"]["latest_chars"] == len(HEARTBEAT)


@pytest.mark.parametrize("name", ["summary-first.json", "summary-compacted.json"])
def test_the_compactions_summary_is_instruction_whatever_its_transcript(name: str) -> None:
    """Its transcript is no ask (coding, by its code, before): instruction by rule."""
    body = captured(name)
    seen = view(body)
    assert (seen.latest, seen.first, seen.fixed == MEMORY_SUMMARY_READING) == ("", "", True)
    intent = classify(body)
    assert (intent.label, intent.confidence, intent.source) == ("instruction", 0.9, "rule")
    assert explain(body)["rule"] == MEMORY_SUMMARY


def poem_transcript(body: dict[str, Any]) -> dict[str, Any]:
    """`body` summarizing a chat of a poem and a sum (its transcript in Letta's frame)."""
    chat = copy.deepcopy(body)
    chat["messages"][-1]["content"] = (
        f"<start_transcript>\n[MessageRole.user] {POEM}\n[assistant] -> send_message("
        '{"message": "Leaves drift down in amber light, / the quiet street holds its breath"})'
        f"\n[MessageRole.user] What is 17% of 2300?{TRANSCRIPT_END}"
    )
    return chat


def test_a_chats_summary_and_the_default_modes_are_instruction_too() -> None:
    """A poem's transcript (prose, on the cloud, before); the default `sliding_window`
    prompt, sent without the acknowledgement."""
    chat = poem_transcript(captured("summary-first.json"))
    assert classify(chat).label == "instruction"
    sliding = copy.deepcopy(chat)
    del sliding["messages"][1]
    sliding["messages"][0]["content"] = SUMMARY_PROMPTS[1] + " Write a detailed summary ..."
    assert (classify(sliding).label, view(sliding).fixed == MEMORY_SUMMARY_READING) == (
        "instruction",
        True,
    )


def test_a_transcript_after_another_prompt_is_read_as_written() -> None:
    """Letta's frame after a system prompt of another's and no acknowledgement: the ask."""
    body = poem_transcript(captured("summary-first.json"))
    del body["messages"][1]
    body["messages"][0]["content"] = "You are a helpful assistant."
    assert view(body).latest == body["messages"][-1]["content"]
    assert explain(body)["rule"] is None


def test_one_agents_conversation_is_one_key_across_a_memory_edit_and_a_compaction() -> None:
    """The system prompt's memory blocks change (an edited `human` block), and a compaction
    hides the first ask: the agent's and conversation's ids key both."""
    before, after = captured("v1-code-before-edit.json"), captured("v1-code-after-edit.json")
    assert before["messages"][0]["content"] != after["messages"][0]["content"]
    assert conversation_key(before, {}, "c") == conversation_key(after, {}, "c")
    compacted = captured("memgpt-v2-compacted.json")
    assert conversation_key(captured("memgpt-v2-heartbeat.json"), {}, "c") == conversation_key(
        compacted, {}, "c"
    )


def test_agents_and_conversations_are_apart() -> None:
    """Two agents, one agent's two conversations, one agent's two callers: keys apart."""
    sonnet = captured("v1-sonnet.json")
    assert conversation_key(sonnet, {}, "c") != conversation_key(captured("v1-poem.json"), {}, "c")
    other = copy.deepcopy(sonnet)
    conversation = "- CONVERSATION_ID: conv-3b1c0f3e-0b4e-4c4b-9d55-0d5f6b0a7c21\n"
    system = other["messages"][0]["content"]
    other["messages"][0]["content"] = system.replace("- CONVERSATION_ID: default\n", conversation)
    assert view(other).latest == view(sonnet).latest
    assert conversation_key(other, {}, "c") != conversation_key(sonnet, {}, "c")
    assert conversation_key(sonnet, {}, "d") != conversation_key(sonnet, {}, "c")


def test_a_heartbeat_nested_too_deep_for_json_is_read_as_written() -> None:
    """A heartbeat-shaped message nested past the parser's depth: json raised RecursionError,
    the request took the default route; now it is no packed text of Letta's, read as sent."""
    body = captured("memgpt-v2-heartbeat.json")
    body["messages"][-1]["content"] = '{\n  "type": "heartbeat", "x": ' + "[" * 5000
    assert view(body).latest.startswith('{\n  "type": "heartbeat", "x": [[[')
    assert classify(body).label == "tool_calling"
