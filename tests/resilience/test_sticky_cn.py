"""A Continue CLI (`cn`) session resumed is one conversation
(`router.conversation.conversation_key`).

`cn` writes the day's date and a snapshot of `git status` into its system prompt at each
run's start, and `cn --resume` is a new run: a file changed since, or a day gone by, gave the
resumed session a new key, split it in two in the ledger and lost its pin (found in review
with `@continuedev/cli` 1.5.47; `tests/fixtures/continue-cli-1.5.47.md`). Through a live
router and simulators, with the official `openai` SDK.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from classifier.continue_cli import OPENING
from router.conversation import conversation_key
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import FAST, until

FIXTURES = Path(__file__).parents[1] / "fixtures" / "continue-cli-1.5.47"
SENT = json.loads((FIXTURES / "readonly-first-turn.json").read_text())
SYSTEM: str = SENT["messages"][0]["content"]
WAS_STATUS = "\n\nWorking tree clean\n</context>"
WAS_DATE = "Today's date: 2026-12-05\n"


def resumed(system: str) -> str:
    """`system` as a run a day later writes it, after a file changed."""
    assert WAS_STATUS in system and WAS_DATE in system  # as the fixture was sent
    later = system.replace(WAS_DATE, "Today's date: 2026-12-06\n")
    return later.replace(WAS_STATUS, "\n\n M README.md\n?? src/\n</context>")


def body(system: str, *turns: str) -> dict[str, Any]:
    """`cn`'s request: its system prompt, then `turns`, user and assistant in turn."""
    messages = [{"role": "system", "content": system}]
    for i, text in enumerate(turns):
        messages.append({"role": "assistant" if i % 2 else "user", "content": text})
    return {**SENT, "messages": messages}


def test_a_resumed_runs_prompt_keys_the_same_conversation() -> None:
    first = body(SYSTEM, "What is 17 * 23 + 5?")
    later = body(resumed(SYSTEM), "What is 17 * 23 + 5?", "396.", "now add unit tests")
    assert conversation_key(first, {}, "c") == conversation_key(later, {}, "c")
    # what else the prompt says still tells sessions apart: another working directory
    elsewhere = SYSTEM.replace("/tmp/review_continue_live/repo", "/home/me/other")
    assert conversation_key(body(elsewhere, "What is 17 * 23 + 5?"), {}, "c") != (
        conversation_key(first, {}, "c")
    )


def test_only_cns_prompt_is_cut() -> None:
    """Another prompt's date or git status block is its own, and keyed as sent."""
    other = SYSTEM.replace(OPENING, "You are a helpful assistant.")
    assert conversation_key(body(other, "hi"), {}, "c") != (
        conversation_key(body(resumed(other), "hi"), {}, "c")
    )


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[RunningRouter, Collect]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers: dict[str, Running] = {"local": local, "cloud": cloud}
        with router(config_for(servers, tmp_path, resilience=FAST)) as running:
            collect = Collect()  # after the resilience sink: a record it holds, the table has seen
            running.components.gateway.sinks.append(collect)
            yield running, collect


def served(proxy: tuple[RunningRouter, Collect], request: dict[str, Any]) -> tuple[str, Any]:
    """The backend that served `request`, once its conversation is pinned, and its record."""
    running, collect = proxy
    client = openai.OpenAI(base_url=running.url, api_key="x", max_retries=0)
    finished = len(collect.records)
    raw = client.chat.completions.with_raw_response.create(
        model="auto", max_tokens=20, messages=request["messages"], tools=request["tools"]
    )
    raw.parse()
    until(lambda: len(collect.records) > finished, what="the record finished")
    return raw.headers["x-smf-backend"], collect.records[-1]


def test_a_resumed_session_keeps_its_pin_and_its_conversation(
    proxy: tuple[RunningRouter, Collect],
) -> None:
    """The first run's math ask went to the cloud, which the session is pinned to; the
    resumed run's coding ask (local first) stays there, one conversation in the ledger."""
    backend, first = served(proxy, body(SYSTEM, "What is 17 * 23 + 5?"))
    assert (backend, first.intent) == ("cloud", "math")
    later = body(
        resumed(SYSTEM),
        "What is 17 * 23 + 5?",
        "396.",
        "write a python function is_prime in primes.py",
    )
    backend, second = served(proxy, later)
    assert second.intent == "coding"
    assert second.conversation == first.conversation
    assert backend == "cloud"
