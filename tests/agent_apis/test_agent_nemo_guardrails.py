"""Two users of one NeMo Guardrails app are two conversations, each served where its asks go
(`classifier.nemo_guardrails`).

Found running NeMo Guardrails 0.24.1 with Colang 1.0 dialog flows against the router: its
intent and bot-message prompts open with the same fixed head for every user, so every user's
calls were one conversation, and the first user's backend pinned the others' (a math user's
calls served local, pinned by a coding user's). The bodies are the ones NeMo sent
(`tests/fixtures/nemoguardrails-0.24.1.md`); real sockets, the official SDK, a real DuckDB
ledger, the simulators as backends, one caller for both users (one app's key).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import recorded
from tests.agent_apis.sticky_stack import sent_rows
from tests.harness import Collect, RunningRouter

FIXTURES = recorded.FIXTURES / "nemoguardrails-0.24.1"
# Each prompt shape's two users' calls, in the order sent: a coding user's first
SESSIONS = {
    "text": (
        ("text-intent-coding", "text-bot-message-coding"),
        ("text-intent-alice", "text-bot-message-alice"),
    ),
    "chat": (
        ("chat-intent-a", "chat-next-steps-a", "chat-bot-message-a"),
        ("chat-intent-b", "chat-bot-message-b"),
    ),
}
KEYS = {shape: f"sk-nemo-{shape}-5e21" for shape in SESSIONS}


def sent_as_nemo(name: str) -> dict[str, Any]:
    """The recorded `name` without the `extra_headers` body field the review's `llm_params`
    put in alice's bot message: NeMo sends it in the body, the official SDK would send it as
    headers (a session id of its own); the users here name no session."""
    body = recorded.body(FIXTURES / f"{name}.json")
    body.pop("extra_headers", None)
    return body


@pytest.mark.parametrize("shape", SESSIONS)
def test_two_users_are_two_conversations_and_math_goes_to_the_cloud(
    pinning: tuple[RunningRouter, Collect], shape: str
) -> None:
    """The coding user's calls: one conversation, coding on `local`. The math user's, sent
    after them by the same caller: another conversation, math on `cloud`, not pinned by the
    coding user's."""
    coding, math = SESSIONS[shape]
    bodies = [sent_as_nemo(name) for name in (*coding, *math)]
    rows = sent_rows(pinning, KEYS[shape], bodies)
    first, second = rows[: len(coding)], rows[len(coding) :]
    assert len({row[1] for row in first}) == len({row[1] for row in second}) == 1
    assert first[0][1] != second[0][1]
    assert {row[2:] for row in first} == {("coding", "local")}
    assert {row[2:] for row in second} == {("math", "cloud")}
