"""Claude Code's own system turn is no ask: served, explained and classified offline.

Claude Code 2.1.197 (its `mid-conversation-system` beta) sends, on every request with its
default tools, a Messages system turn right after the first user message: the list of its
agents ("Available agent types for the Agent tool: …") and of its skills. The translation
makes it a user message, as a chat backend gets it, and the classifier read it as the latest
ask, 2,001 characters against the user's 45: "write a python function is_prime" was
tool_calling 0.9 (rule "tools offered and asks: 'search for'"), an integral and a haiku too
(found in a live review). The body is the one Claude Code sent, trimmed
(`tests/fixtures/claude-code-2.1.197.md`); real sockets, the simulators as backends.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.conversation import conversation_key, prompt_text
from router.translate.view import chat_view
from tests.agent_apis.agent_stack import anthropic_client
from tests.agent_apis.agent_stack import explained as explain
from tests.harness import Running, RunningRouter

FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude-code-2.1.197" / "first-turn.json"
SMF_ROUTER = Path(sys.executable).parent / "smf-router"
ASKS = {  # the ask, and the label the turn gets without Claude Code's system turn
    "write a python function is_prime in primes.py": "coding",
    "What is the integral of x^2 from 0 to 3? Show the steps.": "math",
    "Write a haiku about autumn rain.": "prose",
}


def first_turn(ask: str | None = None, system_turn: bool = True) -> dict[str, Any]:
    """Claude Code's first request, with `ask` in place of the user's, and with or without
    its system turn (the second turn)."""
    body: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    text = body["messages"][0]["content"][1]
    assert text["text"] == "write a python function is_prime in primes.py"
    assert body["messages"][1]["content"].startswith("Available agent types for the Agent tool:")
    if ask is not None:
        text["text"] = ask
    if not system_turn:
        del body["messages"][1]
    return body


def served(proxy: RunningRouter, body: dict[str, Any]) -> httpx.Headers:
    """The headers of the router's answer to `body`, sent through the official SDK as Claude
    Code sends it (streamed, read to its end); `context_management` is a beta field the SDK
    names no argument for."""
    sent = copy.deepcopy(body)
    extra = {"context_management": sent.pop("context_management")}
    client = anthropic_client(proxy)
    with client.messages.with_streaming_response.create(**sent, extra_body=extra) as answer:
        assert answer.status_code == 200
        assert any(line.startswith("event: message_stop") for line in answer.iter_lines())
        return answer.headers


@pytest.mark.parametrize("ask", ASKS)
def test_claude_codes_system_turn_is_not_read_as_the_ask(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], ask: str
) -> None:
    """Served and explained, the turn is classified as it is without the system turn: by the
    user's words alone, which are what is read as the latest ask."""
    body, alone = first_turn(ask), first_turn(ask, system_turn=False)
    plan, plain = explained(chat_proxy, body), explained(chat_proxy, alone)
    assert plain["intent"]["label"] == ASKS[ask]
    assert plan["intent"] == plain["intent"]
    assert plan["classifier"] == plain["classifier"]
    assert plan["classifier"]["read"]["latest_chars"] == len(ask)
    assert served(chat_proxy, body)["x-smf-intent"] == ASKS[ask]


def explained(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, Any]:
    return explain(proxy, body, "messages")


def test_a_chat_backend_still_gets_the_system_turn_as_a_user_message(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running]
) -> None:
    """Serving is unchanged: the backend gets the agents' and skills' list where Claude Code
    put it, as a user message (Qwen's chat templates refuse a system message after the
    first; litellm would move it to Anthropic's `system`)."""
    body = first_turn()
    served(chat_proxy, {**body, "model": "cloud"})
    sent = chat_sims["cloud"].stats()["last_request"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    assert sent[2] == {"role": "user", "content": body["messages"][1]["content"]}


def test_the_ledgers_prompt_and_the_conversation_key_read_the_users_words() -> None:
    """The ledger's prompt text (the latest user message of the view) was the agents' list;
    the conversation key reads the first ask, the same with the system turn or without."""
    view, alone = (
        chat_view("messages", first_turn()),
        chat_view("messages", first_turn(None, False)),
    )
    assert prompt_text(view).endswith("\nwrite a python function is_prime in primes.py")
    assert conversation_key(view, {}, "c") == conversation_key(alone, {}, "c")


def classified(tmp_path: Path, body: Path) -> dict[str, Any]:
    """`smf-router classify --body FILE --api messages --json`, as a user checks a captured
    body: the JSON it prints."""
    config = tmp_path / "router.yaml"
    config.write_text(
        "backends:\n"
        "  - {name: local, tier: local, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        "  - {name: cloud, tier: cloud, base_url: 'http://127.0.0.1:9/v1', model: m}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [SMF_ROUTER, "classify", "-c", config, "--body", body, "--api", "messages", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_classify_reads_claude_codes_first_turn_by_the_users_words(tmp_path: Path) -> None:
    """`smf-router classify --body FILE --api messages`, as a user checks a captured body."""
    read = classified(tmp_path, FIXTURE)
    assert read["intent"]["label"] == "coding"
    assert read["classifier"]["rule"] is None
    assert read["classifier"]["read"]["latest_chars"] == len(
        "write a python function is_prime in primes.py"
    )


ISO = "Write a Python function that parses ISO 8601 dates and returns a datetime, with unit tests."
HAIKU = "Write a haiku about the sea."
GREETING = [
    {"role": "user", "content": "hi there"},
    {"role": "assistant", "content": "Hello! How can I help?"},
]
OTHER_CLIENTS = {  # another client's system turns: the turns, the ask in them, its label
    "after a greeting": ([*GREETING, {"role": "system", "content": ISO}], ISO, "coding"),
    "alone": ([{"role": "system", "content": HAIKU}], HAIKU, "prose"),
}


@pytest.mark.parametrize("name", OTHER_CLIENTS)
def test_another_clients_system_turn_is_read(tmp_path: Path, name: str) -> None:
    """Only Claude Code's own system turns are left out, told by its wording: an SDK's system
    turn holds its user's words, read as a user turn's are (the ISO 8601 task after a
    greeting was tool_calling 0.62 read from "hi there", and a haiku's ask alone nothing
    read, found in review)."""
    turns, ask, label = OTHER_CLIENTS[name]
    body = {"model": "auto", "max_tokens": 100, "messages": turns}
    as_user = {**body, "messages": [*turns[:-1], {"role": "user", "content": ask}]}
    (tmp_path / "body.json").write_text(json.dumps(body), encoding="utf-8")
    (tmp_path / "user.json").write_text(json.dumps(as_user), encoding="utf-8")
    read, plain = (
        classified(tmp_path, tmp_path / "body.json"),
        classified(tmp_path, tmp_path / "user.json"),
    )
    assert read["intent"]["label"] == label
    assert read["classifier"] == plain["classifier"]
    assert read["classifier"]["read"]["latest_chars"] == len(ask)
    assert chat_view("messages", body)["messages"][-1] == {"role": "user", "content": ask}


def test_claude_codes_other_system_turns_are_left_out() -> None:
    """Its skills' list alone (a system turn of its own in many of 2.1.197's requests, its
    agents' list in another, recorded in a live review) and its note that the date changed,
    bare or in a reminder, are Claude Code's too: left out of the view."""
    body = first_turn()
    turn = body["messages"][1]["content"]
    skills = turn[turn.index("The following skills are available for use with the Skill tool:") :]
    date = (
        "The date has changed. Today's date is now 2026-12-06. DO NOT mention this to the user"
        " explicitly because they are already aware."
    )
    alone = chat_view("messages", first_turn(None, False))
    for text in (skills, date, f"<system-reminder>\n{date}\n</system-reminder>"):
        body["messages"][1] = {"role": "system", "content": text}
        assert chat_view("messages", body)["messages"] == alone["messages"]
        blocks = {"role": "system", "content": [{"type": "text", "text": text}]}
        body["messages"][1] = blocks
        assert chat_view("messages", body)["messages"] == alone["messages"]
