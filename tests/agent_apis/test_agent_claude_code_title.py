"""Claude Code's title request pins nothing of its session (`classifier.side_request`,
`router.sticky_pins`).

Beside a session's first turn Claude Code 2.1.197 sends a title request of its own, with
the session's `X-Claude-Code-Session-Id`. Read whole it was writing 0.39 for "Translate
'good morning, how are you?' into French.", went to the cloud, finished first and pinned
the session: its coding turns were served by the cloud, `reason: sticky` (found in a live
review). Both bodies are the ones Claude Code sent in that session, trimmed
(`tests/fixtures/claude-code-2.1.197.md`); 2.1.337 reworded the title request, and its
recorded one (`tests/fixtures/claude-code-2.1.337.md`) is sent beside the same turn; real
sockets, the simulators as backends, the official `anthropic` SDK as Claude Code sends them
(streamed, read to the end).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest

from tests.agent_apis import sticky_stack
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude-code-2.1.197"
KEYS = {"claude-code": "sk-claude-code-title-4b7e"}
KEY = KEYS["claude-code"]
SESSION = "x-claude-code-session-id"
ASK = "Translate 'good morning, how are you?' into French."
# Each version's recorded title request, and the ask its session was started with
RECORDED = {
    "2.1.197": (FIXTURES / "title.json", ASK),
    "2.1.337": (
        FIXTURES.parent / "claude-code-2.1.337" / "title.json",
        "Write a Python function that reverses a string.",
    ),
}
HAIKU = "Write a short haiku about autumn leaves."  # a title read as prose: the cloud
TITLES = {ASK: "local", HAIKU: "cloud"}  # the ask in the title, and where the title goes


def fixture(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return body


def title(ask: str, version: str = "2.1.197") -> dict[str, Any]:
    """Claude Code `version`'s recorded title request, its session's ask `ask`."""
    path, was = RECORDED[version]
    body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    text = body["messages"][0]["content"][0]
    assert text["text"].startswith(f"<session>\n{was}\n</session>\n\nWrite the title in")
    text["text"] = text["text"].replace(was, ask)
    return body


def served(
    proxy: tuple[RunningRouter, Collect], body: dict[str, Any], session: str
) -> httpx.Headers:
    """The router's headers for the Messages `body` of Claude Code's session `session`,
    streamed through the SDK and read to the end, once its record has finished (its
    conversation pinned by then, if it pins)."""
    running, records = proxy
    finished = len(records.records)
    sent = copy.deepcopy(body)
    beta = {k: sent.pop(k) for k in ("context_management",) if k in sent}  # no SDK argument
    client = anthropic.Anthropic(base_url=running.root, api_key=KEY, max_retries=0)
    with client.messages.with_streaming_response.create(
        **sent, extra_body=beta, extra_headers={SESSION: session}
    ) as answer:
        assert answer.status_code == 200
        assert any(line.startswith("event: message_stop") for line in answer.iter_lines())
        headers = answer.headers
    until(lambda: len(records.records) > finished, what="the record finished")
    return headers


def first_choice(running: RunningRouter, body: dict[str, Any], session: str) -> dict[str, Any]:
    """The backend the router puts first for the Messages `body` of session `session`."""
    headers = {SESSION: session, "x-api-key": KEY}
    return sticky_stack.first_choice(running, {"api": "messages", **body}, headers)


@pytest.mark.parametrize("version", RECORDED)
@pytest.mark.parametrize("ask", TITLES)
def test_the_title_request_finishing_first_pins_nothing(
    pinning: tuple[RunningRouter, Collect], ask: str, version: str
) -> None:
    """The title, read by the ask inside `<session>`, goes where that ask takes it (the
    recorded one: coding, as an agent's session's ask; a haiku: prose, on the cloud); the
    session's first turn is then routed by its own route, local, not `sticky` to the
    title's backend."""
    session = f"title-first-{version}-{TITLES[ask]}"
    assert served(pinning, title(ask, version), session)["x-smf-backend"] == TITLES[ask]
    turn = fixture("translate-turn.json")
    assert first_choice(pinning[0], turn, session) == {"backend": "local", "reason": "route"}
    headers = served(pinning, turn, session)
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("coding", "local")


def test_the_title_request_follows_its_sessions_pin(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Finishing after the first turn, a title whose ask alone would go to the cloud is
    served where the session is pinned, and leaves the pin there."""
    session = "turn-first"
    assert served(pinning, fixture("translate-turn.json"), session)["x-smf-backend"] == "local"
    pinned = {"backend": "local", "reason": "sticky"}
    assert first_choice(pinning[0], title(HAIKU), session) == pinned
    assert served(pinning, title(HAIKU), session)["x-smf-backend"] == "local"
    assert first_choice(pinning[0], title(HAIKU), session) == pinned
