"""Qwen Code's own user messages are no asks: its sessions are read, and keyed, by the
user's asks after them.

Qwen Code 0.15.10 opens every session with its setup message (the date, the working
directory and its folder tree) answered by its own "Got it. Thanks for the context!", and a
compressed history with the summary answered by "Got it. Thanks for the additional
context!" (`classifier.qwen`). The setup message was read as the first ask: every session a
caller ran in one directory had one conversation key (one session's cloud turn pinned all
the later ones to the cloud), and read with the ask it made "write a haiku about autumn
leaves" coding (found in a live review). The bodies are the ones Qwen Code sent
(`tests/fixtures/qwen-code-0.15.10.md`); real sockets, the official SDK, the simulators as
backends.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier.qwen import SETUP_REPLY, SUMMARY_REPLY
from router.config import parse
from router.conversation import conversation_key
from tests.agent_apis.agent_stack import explained as explain
from tests.agent_apis.agent_stack import streamed_headers
from tests.agent_docs import agent_section
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import FAST

FIXTURES = Path(__file__).parents[1] / "fixtures" / "qwen-code-0.15.10"
EXPLAIN = "explain what sync_dir does"
HAIKU = "write a haiku about autumn leaves"  # prose: the cloud first
PRIME = "write a python function is_prime in primes.py"  # coding: local first
REFACTOR = "refactor app/big.py so the helpers are generated"
LOCAL_WINDOW = 32768  # the review's local window: a big file read is over it
SETUP = "This is the Qwen Code. We are setting up the context for our chat."


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def first_turn(ask: str) -> dict[str, Any]:
    """A session's first request: the setup pair, then `ask` (as Qwen Code sends it, one
    text part)."""
    body = captured("first-turn.json")
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"][0]["text"].startswith(SETUP + "\nToday's date is ")
    assert messages[2]["content"] == SETUP_REPLY
    assert messages[3]["content"] == [{"type": "text", "text": EXPLAIN}]
    messages[3]["content"][0]["text"] = ask
    return body


def without_setup(body: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(body)
    del body["messages"][1:3]
    return body


def big_turn() -> dict[str, Any]:
    """The review's session that read a big file: its ask, the read, and the file (the
    review's own, 1,400 helpers in 80,960 characters: ~40k tokens, past the local window)."""
    body = first_turn(REFACTOR)
    path = "/tmp/review_qwen_live/work/repo/app/big.py"
    call = {"name": "read_file", "arguments": json.dumps({"absolute_path": path})}
    code = "".join(
        f"def helper_{i}(x):\n    return x * {i} + {i}  # step {i}\n\n" for i in range(1400)
    )
    body["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": call}
        ]},
        {"role": "tool", "content": code, "tool_call_id": "call_1"},
    ]  # fmt: skip
    return body


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over a vLLM `local` with the review's window and a `cloud`, the default
    routes, sticky."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers: dict[str, Running] = {"local": local, "cloud": cloud}
        data = config_for(servers, tmp_path_factory.mktemp("qwen"), resilience=FAST).model_dump()
        data["backends"][0]["context_window"] = LOCAL_WINDOW
        with router(parse(data)) as running:
            collect = Collect()  # after the sticky sink: a record it holds, the table has seen
            running.components.gateway.sinks.append(collect)
            yield running, collect


def served(proxy: tuple[RunningRouter, Collect], body: dict[str, Any]) -> httpx.Headers:
    return streamed_headers(*proxy, body)


def explained(proxy: tuple[RunningRouter, Collect], body: dict[str, Any]) -> dict[str, Any]:
    return explain(proxy[0], body)


def test_the_setup_message_is_no_ask(proxy: tuple[RunningRouter, Collect]) -> None:
    """The ask is read alone, and the session reads as an agent's: an unsure reading is
    coding (`agent_session`), served locally."""
    plan = explained(proxy, first_turn(EXPLAIN))
    assert plan["classifier"]["read"]["first_chars"] == 0  # 443: the setup message
    assert plan["classifier"]["read"]["latest_chars"] == len(EXPLAIN)
    assert plan["intent"]["label"] == "coding"
    assert plan["classifier"]["rule"].startswith("agent_session: ")
    headers = served(proxy, first_turn(EXPLAIN))
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("coding", "local")


def test_0_24_4s_reminders_are_no_ask(proxy: tuple[RunningRouter, Collect]) -> None:
    """0.24.4 sends no setup pair: one user message of five text parts, four
    `<system-reminder>` blocks (skills, the setup text, its deferred tools, the date), then
    the ask, read alone as coding (`tests/fixtures/qwen-code-0.24.4.md`). A guard of today's
    reading, not a fix: it passed before it was written."""
    body = json.loads((FIXTURES.parent / "qwen-code-0.24.4" / "first-turn.json").read_text())
    parts = body["messages"][1]["content"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert [p["text"].startswith("<system-reminder>") for p in parts] == [True] * 4 + [False]
    assert parts[1]["text"].startswith("<system-reminder>\n" + SETUP + "\nToday's date is ")
    assert "reachable through `tool_search` and `tool_call`" in parts[2]["text"]
    plan = explained(proxy, body)
    assert plan["classifier"]["read"]["first_chars"] == 0
    assert plan["classifier"]["read"]["latest_chars"] == len(parts[4]["text"]) == 102
    assert plan["intent"]["label"] == "coding"


def test_a_prose_ask_reads_as_it_would_without_the_setup_message(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Read with the setup message, the haiku was prose 0.65, then coding by the agent's
    session, served locally; without it, prose 1.00 (on the cloud): so it is now."""
    with_setup = explained(proxy, first_turn(HAIKU))
    alone = explained(proxy, without_setup(first_turn(HAIKU)))
    assert with_setup["intent"] == alone["intent"]
    assert with_setup["intent"]["label"] == "prose"
    assert with_setup["classifier"]["top_intents"] == alone["classifier"]["top_intents"]


def test_one_sessions_cloud_turn_does_not_pin_the_others(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """A session that read a file too big for the local window keeps to the cloud; the
    next session, in the same directory on the same day, starts where its ask goes."""
    assert served(proxy, big_turn())["x-smf-backend"] == "cloud"
    assert served(proxy, first_turn(PRIME))["x-smf-backend"] == "local"
    big, prime = (conversation_key(body, {}, "c") for body in (big_turn(), first_turn(PRIME)))
    assert big != prime


def test_a_session_keeps_its_key_across_turns_and_days() -> None:
    """Its key is its first ask's: the same on its later turns, and when it is resumed
    another day (Qwen Code writes the day's date into the setup message anew)."""
    first = first_turn(REFACTOR)
    assert conversation_key(first, {}, "c") == conversation_key(big_turn(), {}, "c")
    resumed = copy.deepcopy(first)
    setup = resumed["messages"][1]["content"][0]
    setup["text"] = setup["text"].replace("Saturday, December 5, 2026", "Monday, December 7, 2026")
    assert setup["text"] != first["messages"][1]["content"][0]["text"]
    assert conversation_key(resumed, {}, "c") == conversation_key(first, {}, "c")


def test_a_compressed_history_is_read_by_the_asks_after_the_summary(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """The summary (the model's words) answered by Qwen Code's fixed reply is no ask: the
    first ask after it is, and keys the session from then on."""
    turn = captured("compressed-turn.json")
    assert [m["role"] for m in turn["messages"]] == ["system", "user", "assistant", "user"]
    assert turn["messages"][2]["content"] == SUMMARY_REPLY
    read = explained(proxy, turn)["classifier"]["read"]
    assert (read["first_chars"], read["latest_chars"]) == (0, len("and add a test"))
    history = captured("compressed-history.json")
    assert [m["content"] for m in history["messages"][2:5:2]] == [SETUP_REPLY, SUMMARY_REPLY]
    read = explained(proxy, history)["classifier"]["read"]
    assert read["first_chars"] == len(EXPLAIN)
    assert conversation_key(history, {}, "c") == conversation_key(first_turn(EXPLAIN), {}, "c")


def test_the_next_speaker_check_is_read_as_the_turn_it_checks(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Its fixed prompt, last, is no ask: the session's ask before it is read. (Sent
    without the system prompt, the check is keyed apart from the session's turns, by the
    session's first ask: two sessions' checks, two keys.)"""
    check = captured("next-speaker.json")
    assert check["messages"][-1]["content"][0]["text"].startswith("Analyze *only* the content")
    plan = explained(proxy, check)
    assert plan["classifier"]["read"]["latest_chars"] == len(EXPLAIN)
    assert plan["intent"]["label"] == "coding"
    other = copy.deepcopy(check)
    other["messages"][2]["content"][0]["text"] = PRIME
    assert conversation_key(check, {}, "c") != conversation_key(other, {}, "c")


def test_gemini_clis_setup_message_is_no_ask(proxy: tuple[RunningRouter, Collect]) -> None:
    """Gemini CLI's, which Qwen Code's copies (google-gemini/gemini-cli `environmentContext.ts`;
    no capture: Gemini CLI speaks Gemini's API, these are Qwen Code's body with its text):
    older versions' with the same reply, current ones' in `<session_context>` tags with none
    (a harness block)."""
    older = first_turn(EXPLAIN)
    setup = older["messages"][1]["content"][0]
    setup["text"] = setup["text"].replace("This is the Qwen Code.", "This is the Gemini CLI.")
    current = copy.deepcopy(older)
    del current["messages"][2]
    tagged = f"<session_context>\n{setup['text']}\n</session_context>"
    current["messages"][1]["content"][0]["text"] = tagged
    for body in (older, current):
        read = explained(proxy, body)["classifier"]["read"]
        assert (read["first_chars"], read["latest_chars"]) == (0, len(EXPLAIN))


def test_the_same_words_answered_otherwise_are_an_ask(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Passed over only with Qwen Code's own reply after them: typed last, or answered by
    another reply, the words are the user's."""
    for reply in (None, "Sure, what would you like to set up?"):
        body = first_turn(EXPLAIN)
        body["messages"] = body["messages"][:2]
        if reply is not None:
            body["messages"] += [{"role": "assistant", "content": reply}]
            body["messages"] += [{"role": "user", "content": EXPLAIN}]
        text = body["messages"][1]["content"][0]["text"]
        read = explained(proxy, body)["classifier"]["read"]
        assert len(text) in (read["latest_chars"], read["first_chars"])


def test_the_documented_settings_name_qwen_codes_own_fields() -> None:
    """The settings docs/agents/qwen-code.md gives: the window Qwen Code compresses ahead of, and a
    fixed output limit (`QWEN_CODE_MAX_OUTPUT_TOKENS`), without which a reply cut at its
    8000 is asked again with 64000, past every local window under about 84k."""
    assert captured("first-turn.json")["max_tokens"] == 8000
    section = agent_section("qwen-code.md", "Qwen Code (chat)")
    settings = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
    assert settings["security"]["auth"]["selectedType"] == "openai"
    assert settings["model"]["generationConfig"]["contextWindowSize"] > 8000
    assert "QWEN_CODE_MAX_OUTPUT_TOKENS=" in section and "OPENAI_MODEL=auto" in section
