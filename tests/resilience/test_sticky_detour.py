"""A conversation that passing trouble on the local backend sent to the cloud comes back to
local once it is well; one that left local for good (too long for its window) stays on the
cloud. Through the real app: a router, two simulators, the openai SDK; faults through the
simulators' control API. Pinned, one 429 kept an agent's whole session on the paid cloud
(found in review)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from router.config import parse
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import FAST, circuit, status, until

SYSTEM = {"role": "system", "content": "You are a coding agent."}
TASK = "Write a Python function that reverses a list."
MATH = "What is the integral of x^2 from 0 to 3?"


class Agent:
    """One agent session on `model: auto`: the conversation grows turn by turn. Without a
    `session` its key is the hash of its system prompt and first message; with one, that
    id, sent as `prompt_cache_key` (a session that survives the agent compacting its
    history; OpenAI's `user` names an end user, not a session)."""

    def __init__(
        self, proxy: RunningRouter, collect: Collect, task: str = TASK, session: str | None = None
    ) -> None:
        self.proxy = proxy
        self.client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
        self.collect = collect
        self.session = {"prompt_cache_key": session} if session else None
        self.messages: list[dict[str, Any]] = [SYSTEM, {"role": "user", "content": task}]

    def turn(
        self,
        ask: str = "Now add a docstring and a test.",
        route: list[str] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """Send the conversation so far; the backend that served it. Returns once the router
        has finished the turn's record (the sticky table has seen it)."""
        seen = len(self.collect.records)
        if self.messages[-1]["role"] == "assistant":
            self.messages.append({"role": "user", "content": ask})
        raw = self.client.chat.completions.with_raw_response.create(
            model="auto",
            messages=self.messages,  # type: ignore[arg-type]
            extra_body=self.session,
            max_tokens=max_tokens or openai.omit,
        )
        answer = raw.parse().choices[0].message.content or ""
        self.messages.append({"role": "assistant", "content": answer})
        until(lambda: len(self.collect.records) > seen, what="the turn's record finished")
        routes = self.proxy.components.config.routes
        assert routes[raw.headers["x-smf-route"]] == (route or ["local", "cloud"])
        return str(raw.headers["x-smf-backend"])

    def compact(self, task: str) -> None:
        """The agent summarises its history into one short message (same session)."""
        self.messages = [SYSTEM, {"role": "user", "content": task}]


@contextmanager
def started(
    pair: dict[str, Running], tmp_path: Path, **local: Any
) -> Iterator[tuple[RunningRouter, Collect]]:
    """A router over the pair, `local` settings added to the local backend."""
    data = config_for(pair, tmp_path, resilience=FAST).model_dump(mode="json")
    data["backends"][0].update(local)
    with router(parse(data)) as proxy:
        collect = Collect()  # after the resilience sink: a record it holds, the table has seen
        proxy.components.gateway.sinks.append(collect)
        yield proxy, collect


def test_a_conversation_a_429_sent_to_the_cloud_comes_back_to_local(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    with started(pair, tmp_path) as (proxy, collect):
        agent = Agent(proxy, collect)
        pair["local"].control("faults", {"fault": "rate_limit_no_retry_after"})
        assert agent.turn() == "cloud"
        pair["local"].control("faults", {"fault": None})
        assert circuit(proxy.root, "local") == "closed"  # one 429 opens nothing
        assert [agent.turn() for _ in range(2)] == ["local"] * 2


def test_a_conversation_comes_back_to_local_after_its_circuit_closes(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    with started(pair, tmp_path) as (proxy, collect):
        agent = Agent(proxy, collect)
        assert agent.turn() == "local"
        pair["local"].control("faults", {"down": True, "for_s": 6.0})  # its port closes
        until(lambda: circuit(proxy.root, "local") == "open", what="local's circuit open")
        assert agent.turn() == "cloud"
        until(lambda: circuit(proxy.root, "local") == "closed", what="local's circuit closed")
        assert [agent.turn() for _ in range(2)] == ["local"] * 2


def test_a_conversation_an_overflow_sent_to_the_cloud_comes_back_to_local(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    with started(pair, tmp_path, max_concurrency=1) as (proxy, collect):
        agent = Agent(proxy, collect)
        other = Agent(proxy, collect, task="Write a Python function that sorts a list.")
        pair["local"].control("faults", {"fault": "hold"})  # local's one slot stays taken
        busy = threading.Thread(target=other.turn)
        busy.start()
        try:
            until(lambda: pair["local"].stats().get("held", 0) >= 1, what="local's slot taken")
            resilience = status(proxy.root)["extra"]["resilience"]
            assert resilience["backends"]["local"]["saturated"] == "inflight_limit"
            assert agent.turn() == "cloud"
        finally:
            pair["local"].control("faults", {"fault": None})
            pair["local"].control("release", {})
            busy.join(timeout=30)
        assert [agent.turn() for _ in range(2)] == ["local"] * 2


def test_a_cloud_first_turn_while_the_pinned_local_is_full_is_a_detour_too(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """A conversation pinned to local whose math turn (a cloud-first route) came while local
    was full: the pin was read as absent, the cloud was no detour, and the session stayed on
    the cloud for good (found in review). The pin stays the preferred backend while full."""
    with started(pair, tmp_path, max_concurrency=1) as (proxy, collect):
        agent = Agent(proxy, collect)
        assert agent.turn() == "local"
        other = Agent(proxy, collect, task="Write a Python function that sorts a list.")
        pair["local"].control("faults", {"fault": "hold"})
        busy = threading.Thread(target=other.turn)
        busy.start()
        try:
            until(lambda: pair["local"].stats().get("held", 0) >= 1, what="local's slot taken")
            assert agent.turn(MATH, route=["cloud", "local"]) == "cloud"
        finally:
            pair["local"].control("faults", {"fault": None})
            pair["local"].control("release", {})
            busy.join(timeout=30)
        assert [agent.turn() for _ in range(2)] == ["local"] * 2


@pytest.mark.parametrize("why", ["window", "context_error"])
def test_a_conversation_too_long_for_local_stays_on_the_cloud(
    pair: dict[str, Running], tmp_path: Path, why: str
) -> None:
    """A permanent reason is no detour: skipped for its window, or refused by local's own
    context-length error, the conversation keeps to the cloud, its turns that would fit on
    local after the agent compacted its history included."""
    with started(pair, tmp_path, context_window=1000) as (proxy, collect):
        long = TASK + " Keep it short." * 800 if why == "window" else TASK
        agent = Agent(proxy, collect, task=long, session="agent-7")
        if why == "context_error":
            pair["local"].control("faults", {"fault": "context_length"})
        assert agent.turn() == "cloud"
        pair["local"].control("faults", {"fault": None})
        assert Agent(proxy, collect, session="agent-8").turn() == "local"  # local serves others
        agent.compact("Summary: reversed a list. Now add a test.")
        assert [agent.turn() for _ in range(2)] == ["cloud"] * 2


def test_a_turn_asking_for_more_output_than_local_holds_does_not_pin_the_cloud(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """The prompt fits local's window, the prompt and its `max_tokens` do not: that turn
    goes to the cloud, and the next turns, asking for less, come back to local. Counted as
    a prompt too long, one large `max_tokens` kept the session on the cloud for good (found
    in review)."""
    with started(pair, tmp_path, context_window=1000) as (proxy, collect):
        agent = Agent(proxy, collect, session="agent-9")
        assert agent.turn(max_tokens=2000) == "cloud"
        assert [agent.turn() for _ in range(2)] == ["local"] * 2


def test_a_turn_local_refuses_for_its_max_tokens_does_not_pin_the_cloud(
    tmp_path: Path,
) -> None:
    """The configured window is larger than the one vLLM serves, so the plan sends the turn
    to local, whose 400 names `max_tokens`: a context error like a prompt too long, it kept
    the session on the cloud (found in review)."""
    with (
        simulator(profile="vllm", model="local-model", max_model_len=512) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        started({"local": local, "cloud": cloud}, tmp_path, context_window=262144) as running,
    ):
        proxy, collect = running
        agent = Agent(proxy, collect, session="agent-10")
        assert agent.turn(max_tokens=600) == "cloud"
        assert local.completions() == 1  # tried, refused
        assert [agent.turn() for _ in range(2)] == ["local"] * 2


def test_a_messages_turn_vllm_refuses_for_its_max_tokens_does_not_pin_the_cloud(
    tmp_path: Path,
) -> None:
    """Claude Code's case, on vLLM's own Messages API: its refusal of `max_tokens` has no
    `param`, only the field named in its message, so it read as a prompt too long and the
    session stayed on the cloud (found in review)."""
    apis = ["chat", "completions", "responses", "messages"]
    with (
        simulator(profile="vllm", model="local-model", max_model_len=512) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        started(
            {"local": local, "cloud": cloud}, tmp_path, context_window=262144, apis=apis
        ) as running,
    ):
        proxy, collect = running
        client = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
        session = {"x-claude-code-session-id": "session-11"}

        def turn(max_tokens: int) -> str:
            seen = len(collect.records)
            raw = client.messages.with_raw_response.create(
                model="auto",
                max_tokens=max_tokens,
                messages=[{"role": "user", "content": TASK}],
                extra_headers=session,
            )
            until(lambda: len(collect.records) > seen, what="the turn's record finished")
            return str(raw.headers["x-smf-backend"])

        assert turn(600) == "cloud"
        assert local.completions("/v1/messages") == 1  # tried natively, refused
        assert [turn(50), turn(50)] == ["local", "local"]
