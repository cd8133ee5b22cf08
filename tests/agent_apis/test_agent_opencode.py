"""opencode's own user messages are no asks: its title call and a compacted history are
read, and keyed, by the user's ask after them.

opencode 1.18.33's title call sends "Generate a title for this conversation:\\n" as a user
message before the ask, and a compacted session's history starts with its "What did we do
so far?" (`classifier.opencode`). Each was read as the first ask, so every session's title
call had one conversation key (one session's cloud title pinned all the later ones), and
so had every compacted session; the title call, with no tools, did not read as an agent's
session either, and "explain what sync_dir does" was reasoning, sent to the cloud (found in
a live review). The bodies are the ones opencode sent (`tests/fixtures/opencode-1.18.33.md`);
real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier.asks import first_ask
from classifier.opencode import COMPACTED, TITLE_ASK
from classifier.request import view
from router.conversation import conversation_key
from tests.agent_apis.agent_stack import explained as explain
from tests.agent_apis.agent_stack import streamed_headers
from tests.agent_apis.sticky_stack import sticky_router
from tests.agent_docs import agent_section
from tests.harness import Collect, Running, RunningRouter, config_for
from tests.resilience.conftest import FAST

FIXTURES = Path(__file__).parents[1] / "fixtures" / "opencode-1.18.33"
# as typed in the review, with their quotes
HAIKU = '"write a haiku about autumn leaves"'  # prose: the cloud first
EXPLAIN = '"explain what sync_dir does"'
PRIME = '"write a python function is_prime in primes.py"'  # coding: local first
RENAME = '"now rename fib to fibonacci"'
FIXTURES_NAMES = ("title-call.json", "compaction.json", "compacted-turn.json")


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def title_call(ask: str) -> dict[str, Any]:
    """opencode's title call for a session whose first ask is `ask`."""
    body = captured("title-call.json")
    assert [m["content"] for m in body["messages"][1:]] == [TITLE_ASK, HAIKU]
    body["messages"][2]["content"] = ask
    return body


def compacted_turn(summary: str | None = None, ask: str | None = None) -> dict[str, Any]:
    """The first turn after a compaction: its fixed message, the summary, then `ask`."""
    body = captured("compacted-turn.json")
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert (messages[1]["content"], messages[3]["content"]) == (COMPACTED, RENAME)
    if summary is not None:
        messages[2]["content"] = summary
    if ask is not None:
        messages[3]["content"] = ask
    return body


@pytest.fixture(scope="module")
def proxy(
    chat_sims: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over a vLLM `local` and a `cloud`, the default routes, sticky."""
    config = config_for(chat_sims, tmp_path_factory.mktemp("opencode"), resilience=FAST)
    with sticky_router(config) as running:
        yield running


def served(proxy: tuple[RunningRouter, Collect], body: dict[str, Any]) -> httpx.Headers:
    return streamed_headers(*proxy, body)


def explained(proxy: tuple[RunningRouter, Collect], body: dict[str, Any]) -> dict[str, Any]:
    return explain(proxy[0], body)


def test_a_title_call_reads_as_an_agents_session(proxy: tuple[RunningRouter, Collect]) -> None:
    """The ask is read, opencode's message is not, and an unsure reading is coding, as in
    the session's own turns (`agent_session`); a haiku's title call stays prose."""
    plan = explained(proxy, title_call(EXPLAIN))
    assert plan["intent"]["label"] == "coding"
    assert plan["classifier"]["rule"].startswith("agent_session: an agent's text in a user turn")
    assert plan["classifier"]["read"]["latest_chars"] == len(EXPLAIN)
    assert plan["classifier"]["read"]["first_chars"] == 0
    headers = served(proxy, title_call(EXPLAIN))
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("coding", "local")
    assert explained(proxy, title_call(HAIKU))["intent"]["label"] == "prose"


def test_one_sessions_cloud_title_does_not_pin_the_others(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    assert served(proxy, title_call(HAIKU))["x-smf-backend"] == "cloud"
    assert served(proxy, title_call(PRIME))["x-smf-backend"] == "local"
    haiku, prime = (conversation_key(title_call(ask), {}, "c") for ask in (HAIKU, PRIME))
    assert haiku != prime


def test_one_compacted_sessions_cloud_turn_does_not_pin_the_others(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Each compacted session is keyed by its first ask after the summary, the same on its
    later turns."""
    other = compacted_turn("## Objective\n- A poem for the release notes", HAIKU)
    assert served(proxy, other)["x-smf-backend"] == "cloud"
    own = compacted_turn()
    assert served(proxy, own)["x-smf-backend"] == "local"
    later = copy.deepcopy(own)
    later["messages"] += [
        {"role": "assistant", "content": "Renamed."},
        {"role": "user", "content": '"add type hints to fibonacci"'},
    ]
    assert conversation_key(own, {}, "c") == conversation_key(later, {}, "c")
    assert conversation_key(own, {}, "c") != conversation_key(other, {}, "c")
    assert explained(proxy, own)["classifier"]["read"]["latest_chars"] == len(RENAME)


def test_the_compaction_request_is_no_ask(proxy: tuple[RunningRouter, Collect]) -> None:
    """Its one user message is opencode's prompt around the conversation: nothing of it is
    read as an ask (the user's words in it were asks of their own turns), and it takes the
    default route."""
    plan = explained(proxy, captured("compaction.json"))
    assert plan["intent"]["label"] == "unknown"
    assert plan["classifier"]["read"]["latest_chars"] == 0
    assert served(proxy, captured("compaction.json"))["x-smf-route"] == "coding"


def test_the_same_words_typed_as_the_latest_message_are_an_ask(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Passed over only with a message after them: typed last, they are the user's ask."""
    for text in (COMPACTED, TITLE_ASK):
        body = compacted_turn()
        body["messages"] = [body["messages"][0], {"role": "user", "content": text}]
        assert explained(proxy, body)["classifier"]["read"]["latest_chars"] == len(text)


def test_the_documented_config_lowers_opencodes_output_limit() -> None:
    """opencode asks `max_tokens: 32000` (each captured body does) unless its model's
    `limit.output` says less: the documented config says less, within gpt-4o's 16384."""
    assert {captured(name)["max_tokens"] for name in FIXTURES_NAMES} == {32000}
    section = agent_section("opencode.md", "opencode (chat)")
    config = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
    limit = config["provider"]["smf"]["models"]["auto"]["limit"]
    assert limit["output"] <= 16384 and limit["output"] < limit["context"]


@pytest.mark.parametrize(
    ("messages", "latest", "first"),
    [
        pytest.param(
            [
                {"role": "user", "content": "Write a short poem about the sea."},
                {"role": "assistant", "content": "Waves."},
                {"role": "user", "content": COMPACTED},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "history", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "poem written"},
            ],
            COMPACTED,
            0,
            id="tool-loop",
        ),
        pytest.param(
            [
                {"role": "user", "content": COMPACTED},
                {"role": "assistant", "content": "Nothing yet."},
                {"role": "user", "content": "explain what sync_dir does"},
            ],
            "explain what sync_dir does",
            0,
            id="plain-chat",
        ),
        pytest.param(
            [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": TITLE_ASK},
                {"role": "user", "content": "write a haiku about autumn leaves"},
            ],
            "write a haiku about autumn leaves",
            1,
            id="title-words-elsewhere",
        ),
    ],
)
def test_opencodes_words_in_another_clients_request_are_the_users(
    messages: list[dict[str, Any]], latest: str, first: int
) -> None:
    """Matched in any request, a user's "What did we do so far?" was passed over: the ask
    read from another message, the first ask keyed apart from the next turn's, and the
    chat taken for an agent's session (found in review). opencode's own come after its
    system prompt."""
    read = view({"messages": messages})
    assert (read.latest, read.harness_cut) == (latest, False)
    assert first_ask(messages) is messages[first]


def _kilo_compacted(stamp: str) -> list[dict[str, Any]]:
    """Kilo Code CLI 7.7.7's compacted history (captured): its system prompt, its fixed
    "What did we do so far?" with its environment block as a second text part, the
    summary, then the user's next ask."""
    details = f"\n\n<environment_details>\nMessage time: {stamp}\n</environment_details>"
    return [
        {
            "role": "system",
            "content": "You are Kilo, a highly skilled software engineer with extensive "
            "knowledge in many programming languages, frameworks, design patterns, and best "
            "practices.",
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": COMPACTED}, {"type": "text", "text": details}],
        },
        {"role": "assistant", "content": "We added fib to math_utils.py."},
        {"role": "user", "content": "now rename fib to fibonacci"},
    ]


def test_kilo_codes_compacted_history_is_read_and_keyed_by_the_ask_after_it() -> None:
    """Sent as two text parts, the fixed text was no one text, read as the first ask: every
    compacted Kilo session keyed by it (and its timestamp)."""
    early, late = _kilo_compacted("2026-12-05T20:02:32Z"), _kilo_compacted("2026-12-05T21:00:00Z")
    assert first_ask(early) is early[3]
    assert view({"messages": early}).latest == "now rename fib to fibonacci"
    assert conversation_key({"messages": early}, {}, "c") == conversation_key(
        {"messages": late}, {}, "c"
    )
