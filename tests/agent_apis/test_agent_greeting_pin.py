"""A chat that opens with a greeting: the greeting asks nothing and pins nothing, the
chat's first task chooses its backend (`classifier.greeting`, `router.resilience`).

"Hi! Can you help me?" was read tool_calling 0.91 and served on that route, and the sticky
table then pinned the whole chat to its backend: a proof asked next stayed on local for the
sticky TTL (users' probes). Real sockets, the official SDK, both simulators, the ledger's
DuckDB files.
"""

from __future__ import annotations

from typing import Any

from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

KEYS = {"greeter": "sk-greeter-7d21"}
HELLO = "Hi! Can you help me?"
MATH = "Prove that the square root of 2 is irrational."


def chat(*turns: str) -> dict[str, Any]:
    """A chat body of the user's `turns`, growing as a chat app sends it, an assistant's
    reply between each two."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."}]
    for n, turn in enumerate(turns):
        if n:
            messages.append({"role": "assistant", "content": "Sure: what would you like?"})
        messages.append({"role": "user", "content": turn})
    return {"model": "auto", "messages": messages}


def test_a_greeting_pins_nothing_and_the_first_task_chooses_the_backend(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    key = KEYS["greeter"]
    hello = pinned_headers(pinning, key, chat(HELLO))
    assert (hello["x-smf-intent"], hello["x-smf-route"]) == ("unknown", "coding")
    assert hello["x-smf-backend"] == "local"  # the default route's first backend
    proof = pinned_headers(pinning, key, chat(HELLO, MATH))
    assert (proof["x-smf-intent"], proof["x-smf-backend"]) == ("math", "cloud")
    code = "Write a Python function that reverses a linked list."
    on = pinned_headers(pinning, key, chat(HELLO, MATH, code))
    assert on["x-smf-intent"] == "coding"  # local first on its own route...
    assert on["x-smf-backend"] == "cloud"  # ...pinned where the first task went


def test_two_chats_opening_with_hi_are_two_conversations(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    key = KEYS["greeter"]
    sent = [
        pinned_headers(pinning, key, chat("hi", MATH)),
        pinned_headers(pinning, key, chat("hi", "Write a haiku about autumn leaves.")),
    ]
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in sent])
    assert len(rows) == 2 and rows[0][1] is not None
    assert rows[0][1] != rows[1][1]
    assert (rows[0][2], rows[1][2]) == ("math", "prose")


def test_a_turn_read_as_asking_nothing_keeps_a_pin_but_makes_none(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Any turn the classifier reads nothing in (route reason `nothing_read`), not only a
    greeting: "asdf", no system prompt, keys the chat as its first ask but pins nothing; the
    proof after it pins the cloud, and a "qwzx" after that, nothing read, keeps the pin."""
    key = KEYS["greeter"]
    turns: list[dict[str, Any]] = [{"role": "user", "content": "asdf"}]
    first = pinned_headers(pinning, key, {"model": "auto", "messages": turns})
    assert (first["x-smf-intent"], first["x-smf-backend"]) == ("unknown", "local")
    turns += [{"role": "assistant", "content": "?"}, {"role": "user", "content": MATH}]
    proof = pinned_headers(pinning, key, {"model": "auto", "messages": turns})
    assert (proof["x-smf-intent"], proof["x-smf-backend"]) == ("math", "cloud")
    turns += [{"role": "assistant", "content": "..."}, {"role": "user", "content": "qwzx"}]
    last = pinned_headers(pinning, key, {"model": "auto", "messages": turns})
    assert (last["x-smf-intent"], last["x-smf-backend"]) == ("unknown", "cloud")


def test_a_turn_read_as_asking_nothing_on_its_pinned_backend_restarts_the_pins_ttl(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """A pin kept by a turn that asks nothing has its TTL restarted (`Table.remember`):
    after a "zkvq" (the chat's key), a proof pins the cloud, a "qwzx" three quarters of the
    TTL later keeps it, and a coding ask (local first on its own) another three quarters
    later, past the proof's expiry but inside the "qwzx"'s, still goes to the cloud. The
    sticky table's clock is stepped by hand, no sleep."""
    key = KEYS["greeter"]
    table = pinning[0].components.gateway.state_source.table  # type: ignore[attr-defined]
    real_clock, now = table.clock, [table.clock()]
    table.clock = lambda: now[0]
    try:
        turns: list[dict[str, Any]] = [{"role": "user", "content": "zkvq"}]
        pinned_headers(pinning, key, {"model": "auto", "messages": turns})  # pins nothing
        turns += [{"role": "assistant", "content": "?"}, {"role": "user", "content": MATH}]
        proof = pinned_headers(pinning, key, {"model": "auto", "messages": turns})
        assert (proof["x-smf-intent"], proof["x-smf-backend"]) == ("math", "cloud")
        now[0] += table.ttl_s * 0.75
        turns += [{"role": "assistant", "content": "..."}, {"role": "user", "content": "qwzx"}]
        kept = pinned_headers(pinning, key, {"model": "auto", "messages": turns})
        assert (kept["x-smf-intent"], kept["x-smf-backend"]) == ("unknown", "cloud")
        now[0] += table.ttl_s * 0.75
        code = "Write a Python function that reverses a linked list."
        turns += [{"role": "assistant", "content": "?"}, {"role": "user", "content": code}]
        on = pinned_headers(pinning, key, {"model": "auto", "messages": turns})
        assert (on["x-smf-intent"], on["x-smf-backend"]) == ("coding", "cloud")
    finally:
        table.clock = real_clock
