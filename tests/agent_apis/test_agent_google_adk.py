"""A Google ADK agent's request is read by the user's ask, and one run is one conversation on one
backend (`classifier.adk`).

ADK 2.13.0 sends an agent what other agents did as user messages of its own (a transfer's call
and result, a `SequentialAgent`'s earlier answers), and a `LoopAgent`'s next round ends on its
filler "Continue processing previous requests as instructed. ...". Read as the ask, the math
tutor a coordinator handed "Solve for x: ..." was reasoning 0.24 (the default route, local) or
tool_calling by `transfer_to_agent` inside the relay, and the loop's second round writing 0.44;
each agent's system prompt differs by ADK's line naming it, and a run was a conversation per
agent, the tutor's unpinned from the coordinator's cloud (found running ADK 2.13.0 against the
router). The bodies are the ones it sent (`tests/fixtures/google-adk-2.13.0.md`); real sockets,
the official SDK, a real DuckDB ledger, the simulators as backends. Each run sends as a caller
of its own: a conversation is scoped by the caller's key, and no test's pin holds another's.
"""

from __future__ import annotations

import pytest

from tests.adk_runs import DETERMINANT, ROOTS, RUNS, SOLVE, captured
from tests.agent_apis.served import served_as_read
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

# A request of ADK's own messages after the user's one ask, and that ask
AFTER_THE_ASK = {
    "transfer-tutor.json": SOLVE,
    "transfer-tutor-may-transfer.json": SOLVE,
    "sequential-checker.json": ROOTS,
    "loop-continue.json": DETERMINANT,
}
# One key a run, each run served by the cloud
KEYS = {name: f"sk-adk-{name}-5c1e" for name in RUNS}


@pytest.mark.parametrize("name", AFTER_THE_ASK)
def test_an_agent_is_read_and_served_by_the_users_ask(
    default_proxy: RunningRouter, name: str
) -> None:
    """ADK's relays and filler after the ask are passed over: the ask alone is read, math,
    served by the cloud."""
    served_as_read(default_proxy, captured(name), AFTER_THE_ASK[name], ("math", "cloud"))


@pytest.mark.parametrize("run", RUNS)
def test_a_run_is_one_conversation_on_one_backend(
    pinning: tuple[RunningRouter, Collect], run: str
) -> None:
    """Each agent's requests of a run, and each round's: one conversation in the ledger, on
    the cloud, each math; a chat asking the run's opening words alone is another."""
    bodies = [captured(name) for name in RUNS[run]]
    headers = [pinned_headers(pinning, KEYS[run], body) for body in bodies]
    assert [h["x-smf-intent"] for h in headers] == ["math"] * len(bodies)
    opening = bodies[0]["messages"][1]
    alone = {"model": "auto", "messages": [opening]}
    headers.append(pinned_headers(pinning, KEYS[run], alone))
    ids = [h["x-request-id"] for h in headers]
    rows = ledger_rows(pinning[0], ids)
    assert [row[0] for row in rows] == ids
    assert len({row[1] for row in rows[:-1]}) == 1 and rows[0][1] is not None
    assert rows[-1][1] != rows[0][1]
    assert {row[3] for row in rows} == {"cloud"}
