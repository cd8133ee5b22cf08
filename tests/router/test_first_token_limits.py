"""Which limit bounds a held stream's wait for its first token, and which one a 504 names.

A native Responses or Messages stream from vLLM opens at once (`response.created`,
`message_start`), then prefills. The wait for its first event is `first_token_s`; once it
opened, the gap between pieces (`idle_s`) or the total deadline bounds it. The switch ran
before the piece's opener was read, so an opener alone in the first piece left
`first_token_s` running, and the 504 named `idle_s`, a limit that had not fired (found in
review). The simulator's `late_first_token` fault sends the opening events, then pauses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from router.config import parse
from tests.harness import config_for, router, simulator

ASK = [{"role": "user", "content": "Say hello."}]
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "responses": ("/responses", {"input": "Say hello."}),
    "messages": ("/messages", {"messages": ASK, "max_tokens": 64}),
}


def _ask(api: str, tmp: Path, timeouts: dict[str, float], pause: float) -> httpx.Response:
    """One stream of `api`, served natively by a vLLM simulator that pauses `pause` s
    after its opening events."""
    fault = f"late_first_token:{pause:g}"
    with simulator(profile="vllm", model="local-model", fault=fault) as sim:
        data = config_for({"local": sim}, tmp, timeouts).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat", "completions", "responses", "messages"]
        with router(parse(data)) as proxy:
            path, body = REQUESTS[api]
            ask = {"model": "local", **body, "stream": True}
            with httpx.stream("POST", proxy.url + path, json=ask, timeout=60) as reply:
                reply.read()
            assert sim.completions("/v1" + path) == 1  # served natively, not translated
            return reply


@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_an_opened_stream_waits_idle_s_not_first_token_s(api: str, tmp_path: Path) -> None:
    """Prefill outlasts `first_token_s` but not `idle_s`: the stream opened, so it is
    answered (it was a 504 once `first_token_s` ran out). The budgets leave the opener
    seconds to arrive on a loaded machine: what is tested is which limit runs after it."""
    timeouts = {"first_token_s": 2, "idle_s": 30, "total_s": 60}
    reply = _ask(api, tmp_path, timeouts, pause=5)
    assert reply.status_code == 200, reply.text


@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_the_504_names_the_total_deadline_when_that_fired(api: str, tmp_path: Path) -> None:
    """The total deadline comes before `idle_s` ends: the message says so, not that the
    stream stalled for `idle_s`."""
    timeouts = {"first_token_s": 3, "idle_s": 30, "total_s": 6}
    reply = _ask(api, tmp_path, timeouts, pause=12)
    assert reply.status_code == 504
    message = reply.json()["error"]["message"]
    assert "total time limit reached before its first token" in message, message


@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_the_504_names_idle_s_when_that_fired(api: str, tmp_path: Path) -> None:
    """`first_token_s` is longer than `idle_s` here: the opener arrives well within it
    (with 1 s, a loaded CI once had the opener late, and the first-token budget fired)."""
    timeouts = {"first_token_s": 5, "idle_s": 2, "total_s": 60}
    reply = _ask(api, tmp_path, timeouts, pause=12)
    assert reply.status_code == 504
    message = reply.json()["error"]["message"]
    assert "stream stalled for 2 s before its first token" in message, message
