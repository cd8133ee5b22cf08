"""`ask`'s failures say how far the reply got: none, or its status and headers (`began`)."""

from __future__ import annotations

import httpx
import pytest

from evals.endpoint import Endpoint, TransportProblem, ask
from tests.harness import Running

BODY = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}


async def problem(sim: Running, fault: str, timeout_s: float) -> TransportProblem:
    async with httpx.AsyncClient(timeout=timeout_s) as client:
        with pytest.raises(TransportProblem) as info:
            await ask(client, Endpoint(sim.url, "fake-model", headers={"x-sim-fault": fault}), BODY)
    return info.value


@pytest.mark.parametrize(
    ("fault", "timed_out", "began"),
    [
        ("cut_stream", False, True),  # the 200 came, the body broke off: the router's `cut`
        ("reset", False, False),  # no reply at all: `unreachable`
        ("no_response", True, False),  # no reply in the client's time
        ("stall:3", True, True),  # the body's rest not in time: still a timeout
    ],
)
async def test_a_failure_says_whether_the_reply_began(
    sim: Running, fault: str, timed_out: bool, began: bool
) -> None:
    """The body was read inside the POST: a reply cut after its 200 and headers failed as
    a reset connection does, and the canary's span called it `unreachable`."""
    # The client's 1 s only where the fault outlasts any time (no reply, a 3 s stall):
    # elsewhere it could run out on a loaded machine before the cut or the reset came.
    got = await problem(sim, fault, 1.0 if timed_out else 30.0)
    assert isinstance(got.__cause__, httpx.TransportError)
    assert (got.timed_out, got.began) == (timed_out, began)
