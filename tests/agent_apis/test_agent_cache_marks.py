"""A prompt-caching mark on a message's parts changes no conversation (`router.keyed_content.said`).

Found running BeeAI Framework 0.1.85 through litellm 1.110.2 with
`cache_control_injection_points`: litellm marks the newest message's text part
`"cache_control": {"type": "ephemeral"}` (a string content's message itself), as Cline, Roo
and OpenRouter users mark the newest one or two user messages. A session's first ask was
marked on its first turn only, and keyed by its parts as sent its later turns were another
conversation: a 3-turn chat was 2 conversations in the ledger, a RequirementAgent tool run
of 9 requests 3 (its system prompt's `Allowed: True` turning `Allowed: False` between steps
split it too). The bodies have the shapes BeeAI sent; real sockets, the official SDKs, a
real DuckDB ledger, the simulators as backends. Each test sends as a caller of its own.
"""

from __future__ import annotations

import copy
from typing import Any

import anthropic

from router.conversation import KEY_CHARS, conversation_key
from tests.agent_apis.sticky_stack import conversations, ledger_rows
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

KEYS = {name: f"sk-cache-marks-{name}-5e21" for name in ("chat", "tools", "messages", "unmarked")}
MARK = {"type": "ephemeral"}
ROLE = "# Role\nAssume the role of a helpful AI assistant.\n\n"
# BeeAI's RequirementAgent system prompt, each tool followed by whether it may be called now
TOOLS = (
    "# Tools\nYou must use a tool to retrieve factual or historical information.\n\n"
    "Name: get_weather\nDescription: Get the current weather for a city.\n\n"
    "Args:\n    city: the city name\nAllowed: {weather}\n\n"
    "Name: final_answer\nDescription: Sends the final answer to the user\nAllowed: True\n\n"
    "# Notes\n- The current date and time is: 2026-12-07\n"
)
ASKS = (
    "Your task: My name is Bob and I like chess.",
    "Your task: Prove that the square root of 2 is irrational.",
    "Your task: What is my name?",
)


def user(text: str, marked: bool) -> dict[str, Any]:
    """A user message as BeeAI sends it, one text part, marked when it is the newest."""
    part: dict[str, Any] = {"type": "text", "text": text}
    return {"role": "user", "content": [{**part, "cache_control": MARK} if marked else part]}


def chat_turns() -> list[dict[str, Any]]:
    """A 3-turn chat's requests: each turn's newest message marked, the earlier ones not."""
    system = {"role": "system", "content": ROLE + "Answer briefly.\n", "cache_control": MARK}
    bodies, history = [], [system]
    for n, ask in enumerate(ASKS):
        messages = [*copy.deepcopy(history), user(ask, marked=True)]
        bodies.append({"model": "auto", "temperature": 0.0, "messages": messages})
        history += [user(ask, marked=False), {"role": "assistant", "content": f"Answer {n}."}]
    return bodies


def tool_steps() -> list[dict[str, Any]]:
    """A RequirementAgent run's steps: the first its ask marked; the next after the weather
    tool's result (marked), the tool no longer allowed; the last allowed again."""
    call = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    result = {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21C in Paris"}
    history = [
        user("Your task: What is the weather in Paris?", marked=False),
        {"role": "assistant", "tool_calls": [call]},
    ]
    steps = [
        ("True", [user("Your task: What is the weather in Paris?", marked=True)]),
        ("False", [*history, {**result, "cache_control": MARK}]),
        ("True", [*history, result, {"role": "assistant", "content": "Checking."}]),
    ]
    return [
        {
            "model": "auto",
            "messages": [
                {"role": "system", "content": ROLE + TOOLS.format(weather=allowed)},
                *copy.deepcopy(messages),
            ],
        }
        for allowed, messages in steps
    ]


def test_a_chat_whose_newest_message_is_marked_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    assert len(set(conversations(pinning, KEYS["chat"], chat_turns()))) == 1


def test_a_requirement_agents_tool_run_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Its ask marked on the first step only, a tool allowed, then not, then again."""
    assert len(set(conversations(pinning, KEYS["tools"], tool_steps()))) == 1


def test_a_messages_chat_whose_newest_block_is_marked_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Over the anthropic SDK, Claude Code's and Cline's breakpoints on the newest block and
    the system's: the chat view drops them, and the key never read them."""
    running, records = pinning
    client = anthropic.Anthropic(base_url=running.root, api_key=KEYS["messages"], max_retries=0)
    system: Any = [{"type": "text", "text": "Answer briefly.", "cache_control": MARK}]
    ids, history = [], []
    for n, ask in enumerate(ASKS):
        newest = {"role": "user", "content": [{"type": "text", "text": ask, "cache_control": MARK}]}
        finished = len(records.records)
        raw = client.messages.with_raw_response.create(
            model="auto", max_tokens=100, system=system, messages=[*history, newest]
        )
        raw.parse()
        ids.append(raw.headers["x-request-id"])
        until(lambda n=finished: len(records.records) > n, what="the record finished")
        history += [
            {"role": "user", "content": [{"type": "text", "text": ask}]},
            {"role": "assistant", "content": [{"type": "text", "text": f"Answer {n}."}]},
        ]
    rows = ledger_rows(running, ids)
    assert len(rows) == 3 and len({row[1] for row in rows}) == 1


def test_content_without_a_mark_keys_as_it_always_did() -> None:
    """The keys of unmarked string content, as the router made them before the marks were
    left out (a ledger's conversations do not split across an upgrade); a message's own mark
    is not read. A part array keys by its text since (`router.keyed_content.keyed`): one text
    part as its string does, two parts as their texts one a line."""
    system = "You are a helpful assistant. Today is 2026-12-07."
    ask = "What is 17 + 25?"
    bodies = {
        "80d7494be47a4a34": [
            {"role": "system", "content": system},
            {"role": "user", "content": ask},
        ],
        "316ad63b2ce6f10c": [
            {"role": "system", "content": [{"type": "text", "text": system}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is"},
                    {"type": "text", "text": " 17 + 25?"},
                ],
            },
        ],
    }
    one_part = [
        {"role": "system", "content": system},
        {"role": "user", "content": [{"type": "text", "text": ask}]},
    ]
    marked = [
        {"role": "system", "content": system, "cache_control": MARK},
        {"role": "user", "content": ask, "cache_control": MARK},
    ]
    for key, messages in bodies.items():
        assert conversation_key({"messages": messages}, {}, "c", b"secret") == key
    assert conversation_key({"messages": one_part}, {}, "c", b"secret") == "80d7494be47a4a34"
    assert conversation_key({"messages": marked}, {}, "c", b"secret") == "80d7494be47a4a34"
    # a marked part keys as the same part unmarked; the system prompt's parts too
    marked_parts = copy.deepcopy(bodies["316ad63b2ce6f10c"])
    marked_parts[0]["content"][0]["cache_control"] = MARK
    marked_parts[1]["content"][1]["cache_control"] = MARK
    assert conversation_key({"messages": marked_parts}, {}, "c", b"secret") == "316ad63b2ce6f10c"


def test_another_apps_allowed_lines_key_as_they_always_did() -> None:
    """Only RequirementAgent's prompt has its flags read anew (`classifier.beeai.without_flags`):
    another app's "Allowed: True" lines are its own text, keyed as before the rule (the key
    the router made at d94e41c9); two such prompts differing in a flag are two conversations."""
    system = (
        "You review pull requests.\n\nName: lint\nAllowed: True\n\nName: deploy\nAllowed: False\n"
    )
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": "Review this change."},
    ]
    assert conversation_key({"messages": messages}, {}, "c", b"secret") == "c0a7231de9867072"
    flipped = copy.deepcopy(messages)
    flipped[0]["content"] = system.replace("Allowed: False", "Allowed: True")
    assert conversation_key({"messages": flipped}, {}, "c", b"secret") != "c0a7231de9867072"


def test_a_requirement_agents_flags_key_alike_wherever_the_key_cuts() -> None:
    """Its flags read anew as far as the key reads (`KEY_CHARS`): a flag's line just before
    the cut, across it or just past it keys alike whatever the flag says."""
    for pad in range(KEY_CHARS - 40, KEY_CHARS + 40, 3):
        head = ROLE + "x" * (pad - len(ROLE)) + "\n"
        ask = {"role": "user", "content": ASKS[0]}
        keys = {
            conversation_key(
                {"messages": [{"role": "system", "content": head + flag}, ask]}, {}, "c"
            )
            for flag in ("Allowed: True\n" + "z" * 99, "Allowed: False\n" + "z" * 99)
        }
        assert len(keys) == 1, pad
