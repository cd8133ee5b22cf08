"""Claude Code's security monitor's requests pin nothing of their session
(`classifier.claude_code`, `classifier.side_request`, `router.sticky_pins`).

In auto mode, through the router, Claude Code 2.1.332 asks its security monitor about each
checked action: two requests (stage 1, stage 2), not streamed, with the session's
`X-Claude-Code-Session-Id`. Read by their instructions, stage 2 was writing and went to the
cloud; one finishing before the session's turn pinned the coding session to the cloud (found
in a live review). Both bodies are the ones Claude Code sent in that review, trimmed
(`tests/fixtures/claude-code-2.1.332.md`); real sockets, the simulators as backends, the
official `anthropic` SDK as Claude Code sends them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.agent_apis.test_agent_claude_code_title import (
    KEY,
    KEYS,
    SESSION,
    first_choice,
    fixture,
    served,
)
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude-code-2.1.332"
__all__ = ["KEYS"]  # the title's caller: its helpers send with its key (`pinning`)
RECORDED_ASK = "Run the test suite with pytest and tell me what fails."
HAIKU = "Write a short haiku about autumn leaves."  # a transcript's ask read as prose: the cloud
STAGES = ("stage1", "stage2")


def monitor(stage: str, ask: str) -> dict[str, Any]:
    """The recorded security monitor request of `stage`, its transcript's ask `ask`."""
    body: dict[str, Any] = json.loads(
        (FIXTURES / f"monitor-{stage}.json").read_text(encoding="utf-8")
    )
    entry = body["messages"][0]["content"][2]
    assert entry["text"] == json.dumps({"user": RECORDED_ASK}, separators=(",", ":")) + "\n"
    entry["text"] = json.dumps({"user": ask}, separators=(",", ":")) + "\n"
    return body


def checked(proxy: tuple[RunningRouter, Collect], body: dict[str, Any], session: str) -> str:
    """The backend that served the monitor's Messages `body` of session `session`, sent as
    Claude Code sends it (not streamed), once its record has finished."""
    running, records = proxy
    finished = len(records.records)
    client = anthropic.Anthropic(base_url=running.root, api_key=KEY, max_retries=0)
    raw = client.messages.with_raw_response.create(
        **copy.deepcopy(body), extra_headers={SESSION: session}
    )
    assert raw.status_code == 200
    until(lambda: len(records.records) > finished, what="the record finished")
    return raw.headers["x-smf-backend"]


@pytest.mark.parametrize("stage", STAGES)
def test_the_monitor_finishing_first_pins_nothing(
    pinning: tuple[RunningRouter, Collect], stage: str
) -> None:
    """The monitor's request, read by its transcript's ask (a haiku: prose, on the cloud),
    finishes before the session's turn; the turn is then routed by its own route, local,
    not `sticky` to the monitor's backend."""
    session = f"monitor-first-{stage}"
    assert checked(pinning, monitor(stage, HAIKU), session) == "cloud"
    turn = fixture("translate-turn.json")
    assert first_choice(pinning[0], turn, session) == {"backend": "local", "reason": "route"}
    headers = served(pinning, turn, session)
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("coding", "local")


def test_the_monitor_follows_its_sessions_pin(pinning: tuple[RunningRouter, Collect]) -> None:
    """After the session's turn, a monitor's request whose ask alone would go to the cloud
    is served where the session is pinned, and leaves the pin there."""
    session = "monitor-after-turn"
    assert served(pinning, fixture("translate-turn.json"), session)["x-smf-backend"] == "local"
    pinned = {"backend": "local", "reason": "sticky"}
    for stage in (*STAGES, *STAGES):  # each served on the pin, which stays
        body = monitor(stage, HAIKU)
        assert first_choice(pinning[0], body, session) == pinned
        assert checked(pinning, body, session) == "local"
