"""A session pinned to local keeps its pin through local's outage: the turns the outage sends
elsewhere are detours, and once local is well the session's turns, a cloud-first intent's
included, go back to it. Dropped when the circuit opened, the pin went with one math turn to
the cloud, and every later turn with it for the sliding TTL (found in review). Through the
real app: a router, two simulators, the openai SDK; faults through `/sim/faults`."""

from __future__ import annotations

from pathlib import Path

from router.resilience import Resilience
from tests.harness import Running, RunningRouter, sdk
from tests.resilience.conftest import circuit, until
from tests.resilience.test_sticky_detour import MATH, SYSTEM, TASK, Agent, started

CLOUD_FIRST = ["cloud", "local"]  # math's route
# A short first-token deadline: local's hang is judged in half a second, not two.
HANG_TIMEOUTS = {"connect_s": 2, "first_token_s": 0.5, "idle_s": 1.5, "total_s": 20}


def streamed_turn(proxy: RunningRouter, session: str) -> str:
    """A streamed coding turn of `session`; the backend that served it. Streamed, a hang is
    a `first_token_timeout`, which no probe can clear: only a live request tries it again."""
    with sdk(proxy).chat.completions.with_streaming_response.create(
        model="auto",
        messages=[SYSTEM, {"role": "user", "content": TASK}],
        stream=True,
        extra_body={"prompt_cache_key": session},
    ) as raw:
        for _ in raw.iter_lines():
            pass
        return str(raw.headers["x-smf-backend"])


def test_a_session_pinned_to_local_comes_back_after_its_outage_whatever_its_intent(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    with started(pair, tmp_path) as (proxy, collect):
        agent = Agent(proxy, collect, session="agent-12")
        assert agent.turn() == "local"
        pair["local"].control("faults", {"down": True, "for_s": 6.0})  # its port closes
        until(lambda: circuit(proxy.root, "local") == "open", what="local's circuit open")
        assert agent.turn(MATH, route=CLOUD_FIRST) == "cloud"  # the route's own first
        assert agent.turn() == "cloud"
        until(lambda: circuit(proxy.root, "local") == "closed", what="local's circuit closed")
        assert [agent.turn(), agent.turn(MATH, route=CLOUD_FIRST)] == ["local", "local"]


def test_a_session_outlasting_its_pins_ttl_in_detours_keeps_its_pin(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """Each detour restarts the pin's TTL: three turns during local's outage, each 0.6 of the
    TTL after the last, and local's pin, past its first TTL twice over, still holds a math
    turn (a cloud-first route) once local is back. Left as the pinning turn set it, the pin
    ran out in a long outage of an active session, and that turn went to the cloud, the
    session with it (a task switching models mid-way). The sticky table's clock is stepped
    by hand, no sleep."""
    with started(pair, tmp_path) as (proxy, collect):
        resilience = proxy.components.gateway.state_source
        assert isinstance(resilience, Resilience)
        table = resilience.table
        real_clock, now = table.clock, [table.clock()]
        table.clock = lambda: now[0]
        try:
            agent = Agent(proxy, collect, session="agent-14")
            assert agent.turn() == "local"
            pair["local"].control("faults", {"down": True, "for_s": 8.0})  # its port closes
            until(lambda: circuit(proxy.root, "local") == "open", what="local's circuit open")
            for ask in (MATH, None, MATH):
                now[0] += table.ttl_s * 0.6
                if ask:
                    assert agent.turn(ask, route=CLOUD_FIRST) == "cloud"
                else:
                    assert agent.turn() == "cloud"
            until(lambda: circuit(proxy.root, "local") == "closed", what="local's circuit closed")
            now[0] += table.ttl_s * 0.6
            assert agent.turn(MATH, route=CLOUD_FIRST) == "local"
        finally:
            table.clock = real_clock


def test_a_cloud_first_turn_while_the_pins_trial_waits_does_not_move_the_pin(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """A hang opens local's circuit, and only a live request may try it again (`/health`
    passes): half-open, the pin is not put first, and a math turn goes to the cloud, the
    route's first, without trying local. That is a detour too: counted as none, it pinned
    the session to the cloud, and its next coding turn went there (found in review)."""
    with started(pair, tmp_path, timeouts=HANG_TIMEOUTS) as (proxy, collect):
        agent = Agent(proxy, collect, session="agent-13")
        assert agent.turn() == "local"
        pair["local"].control("faults", {"fault": "slow_first_token:30"})
        hangs = [streamed_turn(proxy, "agent-13") for _ in range(3)]
        assert hangs == ["cloud"] * 3  # each past local's hang
        until(lambda: circuit(proxy.root, "local") == "half_open", what="local's trial due")
        pair["local"].control("faults", {"fault": None})
        tried = pair["local"].completions()
        assert agent.turn(MATH, route=CLOUD_FIRST) == "cloud"
        assert pair["local"].completions() == tried  # local not tried: no failure, no trial
        assert [agent.turn(), agent.turn(MATH, route=CLOUD_FIRST)] == ["local", "local"]
