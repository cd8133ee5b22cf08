"""What keys a sticky conversation: OpenAI's `user` names an end user, not a conversation,
and every key is the caller's own. Through a live router and simulators, with the official
`openai` SDK (found in review: one math chat pinned all of a user's later coding chats to
the paid cloud for the sliding TTL, and two callers sending one session id shared a pin)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.config import hash_key
from router.conversation import conversation_key
from tests.agent_shapes.aider import aider_body
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import FAST, until

ALICE, BOB = "sk-alice", "sk-bob"
MATH = "Compute the integral of x^2 from 0 to 3 and show each step."  # the cloud first
CODE = "Write a Python function that reverses a linked list, with unit tests."  # local first


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[RunningRouter, Collect]]:
    keys = [{"name": "alice", "sha256": hash_key(ALICE)}, {"name": "bob", "sha256": hash_key(BOB)}]
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers: dict[str, Running] = {"local": local, "cloud": cloud}
        config = config_for(servers, tmp_path, resilience=FAST, auth={"keys": keys})
        with router(config) as running:
            collect = Collect()  # after the resilience sink: a record it holds, the table has seen
            running.components.gateway.sinks.append(collect)
            yield running, collect


def served_by(
    proxy: tuple[RunningRouter, Collect], key: str, messages: list[dict[str, str]], **extra: Any
) -> str:
    """The backend that served one `model: auto` request, once its conversation is pinned."""
    running, collect = proxy
    client = openai.OpenAI(base_url=running.url, api_key=key, max_retries=0)
    finished = len(collect.records)
    raw = client.chat.completions.with_raw_response.create(
        model="auto", max_tokens=20, messages=messages, **extra
    )
    raw.parse()
    until(lambda: len(collect.records) > finished, what="the record finished")
    return raw.headers["x-smf-backend"]


def opening(system: str, text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def test_a_users_math_chat_does_not_pin_their_other_conversations(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    math = opening("conversation B", MATH)
    assert served_by(proxy, ALICE, math, user="u42") == "cloud"
    for other in ("conversation C", "conversation D"):
        assert served_by(proxy, ALICE, opening(other, CODE), user="u42") == "local"
    later = [*math, {"role": "assistant", "content": "9."}, {"role": "user", "content": CODE}]
    assert served_by(proxy, ALICE, later, user="u42") == "cloud"  # a coding turn: it sticks
    assert served_by(proxy, BOB, later, user="u42") == "local"  # another caller's is its own


@pytest.mark.parametrize(
    "session",
    [
        {"extra_body": {"prompt_cache_key": "shared-session"}},
        {"extra_headers": {"x-claude-code-session-id": "shared-session"}},
    ],
)
def test_one_session_id_from_two_callers_is_two_conversations(
    proxy: tuple[RunningRouter, Collect], session: dict[str, Any]
) -> None:
    assert served_by(proxy, ALICE, opening("a", MATH), **session) == "cloud"
    assert served_by(proxy, BOB, opening("b", CODE), **session) == "local"
    assert served_by(proxy, ALICE, opening("c", CODE), **session) == "cloud"  # alice's sticks


def explained_backend(proxy: tuple[RunningRouter, Collect], key: str, body: dict[str, Any]) -> Any:
    """The backend `POST /v1/router/explain` puts first for `body`, and why."""
    running, _ = proxy
    headers = {"authorization": f"Bearer {key}"}
    reply = httpx.post(f"{running.root}/v1/router/explain", json=body, headers=headers, timeout=30)
    first = reply.raise_for_status().json()["backends"][0]
    return first["backend"], first["reason"]


def test_one_aider_sessions_cloud_turn_does_not_pin_the_others(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Every Aider session of one edit format opens with the same example conversation, and
    was keyed by it: a writing turn in one pinned all of a user's Aider sessions to the cloud
    (found in review). A session is keyed by its own first ask."""
    fail = "now the tests fail:\n\nE   NameError: name 'logging' is not defined\n\napp/cli.py:17"
    verbose, rename = "add a --verbose flag to app/cli.py", "rename sync_dir to mirror_dir"
    # /ask mode, clearly other work than coding: in an agent's session an unsure reading is
    # coding (`agent_session`), and "draft a PR description" became one
    haiku = aider_body(verbose, "write a haiku about autumn leaves", mode="ask")
    assert served_by(proxy, ALICE, haiku["messages"]) == "cloud"  # prose
    own_turn, other = aider_body(verbose, fail, mode="ask"), aider_body(rename, fail, mode="ask")
    assert explained_backend(proxy, ALICE, own_turn) == ("cloud", "sticky")  # its own sticks
    assert explained_backend(proxy, ALICE, other)[0] == "local"
    assert served_by(proxy, ALICE, other["messages"]) == "local"  # another session: coding
    assert served_by(proxy, ALICE, own_turn["messages"]) == "cloud"


def test_an_aider_sessions_first_turn_pins_its_later_ones(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """Aider appends its edit format's reminder to the current message: a session's first
    request carried it in its first ask, and was keyed apart from the later ones, whose
    history holds that ask without it, so the first turn's cloud pin did not carry. The
    reminder is not keyed."""
    first, later = aider_body(MATH), aider_body(MATH, CODE)
    assert conversation_key(first, {}, "alice") == conversation_key(later, {}, "alice")
    assert served_by(proxy, ALICE, first["messages"]) == "cloud"
    assert explained_backend(proxy, ALICE, later) == ("cloud", "sticky")
    assert served_by(proxy, ALICE, later["messages"]) == "cloud"


@pytest.mark.parametrize("mode", ["ask", "context", "diff-fenced"])
def test_an_aider_sessions_first_turn_pins_its_later_ones_in_every_mode(
    proxy: tuple[RunningRouter, Collect], mode: str
) -> None:
    """The ask and context modes append their own reminder ("Reply in English.\\n",
    "\\nNEVER RETURN CODE!\\n"; the ask mode's only a blank line when Aider finds no
    language), and `diff-fenced`'s reminder starts with a line break, which the cut left at
    the ask's end: each keyed a session's first request apart from its later ones."""
    first, later = aider_body(MATH, None, mode), aider_body(MATH, CODE, mode)
    assert conversation_key(first, {}, "alice") == conversation_key(later, {}, "alice")
    blank = {**first, "messages": [*first["messages"][:-1], {"role": "user", "content": MATH}]}
    blank["messages"][-1]["content"] += "\n\n"  # no language, no lazy or overeager prompt
    assert conversation_key(blank, {}, "alice") == conversation_key(later, {}, "alice")
    assert served_by(proxy, ALICE, first["messages"]) == "cloud"
    assert explained_backend(proxy, ALICE, later) == ("cloud", "sticky")
    assert served_by(proxy, ALICE, later["messages"]) == "cloud"
