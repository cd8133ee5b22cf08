"""code-puppy's compaction keeps its session one conversation, pinned where it was, and its
summarizer and title requests pin nothing (`classifier.code_puppy`).

code-puppy 0.0.946 puts a compaction's summary before its prompt in the system message: the
session's key changed at each compaction, and its pin was lost. Its summarizer and its
session namer send requests of their own, which its users' `x-smf-session-id` header puts in
the session: finished first, the summarizer (coding 0.39 by its template) pinned a math
session to the local backend (found in a live review). The bodies are the ones it sent
(`tests/fixtures/code-puppy-0.0.946.md`); real sockets, the official SDK, the simulators as
backends, the ledger's rows.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from classifier.code_puppy import DIGEST_OPENING, SUMMARIZER_SYSTEM, SUMMARY_OPENING, TITLE_SYSTEM
from router.conversation import conversation_key
from tests.agent_apis.sticky_stack import ledger_rows
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

FIXTURES = Path(__file__).parents[1] / "fixtures" / "code-puppy-0.0.946"
KEYS = {"code-puppy": "sk-code-puppy-5e21"}
KEY = KEYS["code-puppy"]
IDENTITY = "You are Rex, the most loyal digital puppy, helping your owner Tester get coding stuff"
INTEGRAL = "What is the integral of x^2 from 0 to 3?"
# Each side request, and where it goes when read (its title: the first user entry's, coding)
SIDE = ("summarizer.json", "title-first.json", "title-later.json")


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def compacted(first_ask: str) -> dict[str, Any]:
    """The recorded turn after a compaction, of a session whose first ask was `first_ask`:
    code-puppy keeps it, after the system message that holds the summary."""
    body = captured("after-compaction.json")
    assert body["messages"][1]["role"] == "user"
    body["messages"][1] = {"role": "user", "content": first_ask}
    return body


def sent(
    proxy: tuple[RunningRouter, Collect], body: dict[str, Any], session: str | None = None
) -> httpx.Headers:
    """The router's headers for the chat `body`, sent as code-puppy sends it (streamed when
    it says so, read to the end), once its record has finished (its conversation pinned by
    then, if it pins); `session`: the `x-smf-session-id` its guide sets."""
    running, records = proxy
    finished = len(records.records)
    client = openai.OpenAI(base_url=running.url, api_key=KEY, max_retries=0)
    headers = {"x-smf-session-id": session} if session else None
    with client.chat.completions.with_streaming_response.create(
        **copy.deepcopy(body), extra_headers=headers
    ) as answer:
        assert answer.status_code == 200
        assert list(answer.iter_lines())
        got = answer.headers
    until(lambda: len(records.records) > finished, what="the record finished")
    return got


def test_the_bodies_are_code_puppys() -> None:
    before, after = captured("before-compaction.json"), captured("after-compaction.json")
    assert before["messages"][0]["content"].startswith(IDENTITY)
    system = after["messages"][0]["content"]
    assert system.startswith(SUMMARY_OPENING) and f"\n\n{IDENTITY}" in system
    assert after["messages"][1] == before["messages"][1]  # the first ask, kept
    assert captured("summarizer.json")["messages"][0]["content"] == SUMMARIZER_SYSTEM
    for name in ("title-first.json", "title-later.json"):
        messages = captured(name)["messages"]
        assert messages[0]["content"].startswith(TITLE_SYSTEM)
        assert messages[1]["content"].startswith(DIGEST_OPENING)


def test_a_compaction_keeps_the_session_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The session's turn before the compaction and the one after it are one conversation
    in the ledger (they were two)."""
    headers = [
        sent(pinning, captured(n)) for n in ("before-compaction.json", "after-compaction.json")
    ]
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in headers])
    assert [row[2:] for row in rows] == [("coding", "local")] * 2
    assert rows[0][1] is not None and rows[0][1] == rows[1][1]


def test_a_compaction_keeps_the_sessions_pin(pinning: tuple[RunningRouter, Collect]) -> None:
    """A math session (its first turn on the cloud, pinned there) compacted: its next turn,
    coding, stays on the cloud, where it went local as a conversation of its own."""
    first = sent(pinning, captured("integral.json"))
    assert (first["x-smf-intent"], first["x-smf-backend"]) == ("math", "cloud")
    after = sent(pinning, compacted(INTEGRAL))
    assert (after["x-smf-intent"], after["x-smf-backend"]) == ("coding", "cloud")
    rows = ledger_rows(pinning[0], [first["x-request-id"], after["x-request-id"]])
    assert rows[0][1] == rows[1][1]


@pytest.mark.parametrize("name", SIDE)
def test_a_side_request_finishing_first_pins_nothing(
    pinning: tuple[RunningRouter, Collect], name: str
) -> None:
    """The summarizer or a title request, sent first with the session's header, is served
    on the local backend (coding), and the session's math turn after it still goes to the
    cloud by its own route, not sticky to the side request's backend."""
    session = f"cp-side-{name}"
    side = sent(pinning, captured(name), session)
    assert (side["x-smf-intent"], side["x-smf-backend"]) == ("coding", "local")
    turn = sent(pinning, captured("integral.json"), session)
    assert (turn["x-smf-intent"], turn["x-smf-backend"]) == ("math", "cloud")


def test_other_keys_are_as_they_were() -> None:
    """Keys computed on the code before this reading: a turn before any compaction, the
    summarizer's, and another agent's prompt after a summary (no code-puppy identity), kept
    as sent."""
    other = captured("after-compaction.json")
    system = other["messages"][0]["content"]
    other["messages"][0]["content"] = system.replace(
        "You are Rex, the most loyal digital puppy", "You are Helios, a transcendent agent"
    )
    assert {
        name: conversation_key(captured(name), {}, "c")
        for name in ("before-compaction.json", "integral.json", "summarizer.json")
    } == {
        "before-compaction.json": "8ba930f3bcb6d3da",
        "integral.json": "83a4d6a92c8550ec",
        "summarizer.json": "c12579532adaf9a4",
    }
    assert conversation_key(other, {}, "c") == "6513161b23bd4bd0"
