"""pi names its session in its session affinity headers (`router.session.affinity`).

pi 0.73.1 in its chat mode (`api: "openai-completions"`) sends no `prompt_cache_key`: with
`compat.sendSessionAffinityHeaders` it sends the session's id as `session_id`,
`x-session-affinity` and `x-client-request-id` on each request. Seven pi sessions that opened
with one ask were one ledger conversation sharing one pin (found in a live review). Real
sockets, the official SDK (`extra_headers`, the headers as pi sends them), the ledger's
DuckDB files.
"""

from __future__ import annotations

from typing import Any

from tests.agent_apis.sticky_stack import conversations
from tests.harness import Collect, RunningRouter

KEYS = {"pi": "sk-pi-7a31"}
SYSTEM = (
    "You are an expert coding assistant operating inside pi, a coding agent harness. You help"
    " users by reading files, executing commands, editing code, and writing new files."
)
ASK = "Write a Python function that reverses a linked list."
REPLY = "def reverse(head):\n    prev = None\n    ..."


def pi_turn(session: str | None, *later: str, **headers: str) -> dict[str, Any]:
    """A request of pi's session `session` (its three headers, as pi sends them; none when
    None), opening with `ASK`, each of `later` a user turn after a reply; `headers` more."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": [{"type": "text", "text": ASK}]},
    ]
    for ask in later:
        messages += [
            {"role": "assistant", "content": REPLY},
            {"role": "user", "content": [{"type": "text", "text": ask}]},
        ]
    sent = dict(headers)
    if session is not None:
        sent |= {"session_id": session, "x-client-request-id": session}
        sent |= {"x-session-affinity": session}
    return {"model": "auto", "messages": messages, "extra_headers": sent}


def test_two_sessions_that_open_alike_are_two_conversations(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Without the headers two sessions opening alike are one conversation (as they were);
    with them, two, and each session's later turns are its own one."""
    unnamed, again = conversations(pinning, KEYS["pi"], [pi_turn(None), pi_turn(None)])
    assert unnamed == again
    a1, b1, a2, a3, b2 = conversations(
        pinning,
        KEYS["pi"],
        [
            pi_turn("019a-pi-a"),
            pi_turn("019a-pi-b"),
            pi_turn("019a-pi-a", "now add type hints"),
            pi_turn("019a-pi-a", "now add type hints", "and a docstring"),
            pi_turn("019a-pi-b", "write a haiku about lists"),
        ],
    )
    assert a1 == a2 == a3 and b1 == b2 and a1 != b1 and unnamed not in (a1, b1)


def test_either_affinity_header_names_the_session(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """`x-session-affinity` alone (a proxy that drops a name with an underscore) and
    `session_id` alone (pi's Responses mode, the Codex CLI) each name it."""
    seen = conversations(
        pinning,
        KEYS["pi"],
        [
            pi_turn(None, **{"x-session-affinity": "019a-pi-c"}),
            pi_turn(None, **{"session_id": "019a-pi-c"}),
            pi_turn(None, **{"x-session-affinity": "019a-pi-d"}),
        ],
    )
    assert seen[0] == seen[1] != seen[2]


def test_a_client_request_id_names_no_session(pinning: tuple[RunningRouter, Collect]) -> None:
    """`x-client-request-id` is a request's id: two of them under one opening are the
    opening's one conversation, not two."""
    seen = conversations(
        pinning,
        KEYS["pi"],
        [
            pi_turn(None, **{"x-client-request-id": "req-1"}),
            pi_turn(None, **{"x-client-request-id": "req-2"}),
        ],
    )
    assert seen[0] == seen[1]


def test_the_order_of_session_ids(pinning: tuple[RunningRouter, Collect]) -> None:
    """`x-smf-session-id` and Claude Code's header before pi's; pi's before Open WebUI's chat
    id and `prompt_cache_key`."""
    chat = {"x-openwebui-chat-id": "o1"}
    seen = conversations(
        pinning,
        KEYS["pi"],
        [
            pi_turn("019a-pi-e", **chat) | {"extra_body": {"prompt_cache_key": "k1"}},
            pi_turn("019a-pi-e", **{"x-openwebui-chat-id": "o2"})
            | {"extra_body": {"prompt_cache_key": "k2"}},
            pi_turn("019a-pi-f", **chat) | {"extra_body": {"prompt_cache_key": "k1"}},
            pi_turn("019a-pi-e", **{"x-smf-session-id": "own-1"}),
            pi_turn("019a-pi-f", **{"x-smf-session-id": "own-1"}),
            pi_turn("019a-pi-e", **{"x-claude-code-session-id": "cc-1"}),
            pi_turn("019a-pi-f", **{"x-claude-code-session-id": "cc-1"}),
        ],
    )
    assert seen[0] == seen[1] != seen[2]
    assert seen[3] == seen[4] and seen[5] == seen[6] and seen[3] not in (seen[0], seen[5])


def test_x_session_affinity_comes_before_session_id(pinning: tuple[RunningRouter, Collect]) -> None:
    """Sent both, with different values, the session is `x-session-affinity`'s."""
    seen = conversations(
        pinning,
        KEYS["pi"],
        [
            pi_turn(None, **{"x-session-affinity": "019a-pi-g", "session_id": "019a-pi-h"}),
            pi_turn(None, **{"x-session-affinity": "019a-pi-g"}),
            pi_turn(None, **{"session_id": "019a-pi-h"}),
        ],
    )
    assert seen[0] == seen[1] != seen[2]
