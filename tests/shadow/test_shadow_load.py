"""Shadow replays take the target's sequence slots, and the router counts them as load.

The local simulator holds every chat completion (`hold`) until the test releases it: a
shadow stays in flight there, in a slot the router must see, for as long as the test needs,
with no timing. Its counters (`held`, completions served) say what reached the GPU; the
`x-smf-backend` header says where the live request went.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai

from router.config import Config
from tests.harness import Running, RunningRouter, config_for, router, sdk, simulator
from tests.shadow.shadow_status import chats
from tests.slots import must_reach, status_extra, with_max_concurrency

MATH = "What is 1234 + 4321?"  # routed to the cloud first; shadowed to local
CODE = "Write a Python function that reverses a list"  # routed to local first
SLOTS = 2  # vLLM's max_num_seqs on the local simulator, and the router's max_concurrency


def _config(local: Running, cloud: Running, tmp: Path, shadows: int) -> Config:
    """local with `max_concurrency` SLOTS (as the README advises: vLLM's max_num_seqs),
    math shadowed to local with `shadows` replays at most, capacity counted (resilience)."""
    config = config_for(
        {"local": local, "cloud": cloud},
        tmp,
        timeouts={"first_token_s": 60, "idle_s": 60, "total_s": 120},  # held until released
        shadow={"rates": {"math": 1.0}, "max_concurrency": shadows},
        resilience={"enabled": True, "capacity_poll_s": 0.2},
    )
    return with_max_concurrency(config, "local", SLOTS)


@contextmanager
def _running(tmp: Path, shadows: int) -> Iterator[tuple[RunningRouter, Running, Running]]:
    with (
        simulator(profile="vllm", model="local-model", max_num_seqs=SLOTS) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(_config(local, cloud, tmp, shadows)) as r,
    ):
        local.control("faults", {"fault": "hold"})
        try:
            yield r, local, cloud
        finally:
            local.control("faults", {"fault": None})
            local.control("release", {})


def _served_by(client: openai.OpenAI, prompt: str, stream: bool = False, user: str = "") -> str:
    """The backend that served `prompt`, the reply read to its end. Its conversation is
    its prompt's, or `user`'s when given: one that must not stick to where an earlier
    request of the same prompt went (never one `user` for all: every request would stick
    to the first one's backend)."""
    messages: Any = [{"role": "user", "content": prompt}]
    extra: Any = {"user": user} if user else {}
    if stream:
        raw = client.chat.completions.with_raw_response.create(
            model="auto", messages=messages, stream=True, **extra
        )
        for _ in raw.parse():
            pass
    else:
        raw = client.chat.completions.with_raw_response.create(
            model="auto", messages=messages, **extra
        )
    return str(raw.headers["x-smf-backend"])


def test_a_live_request_overflows_past_local_slots_that_shadows_fill(tmp_path: Path) -> None:
    """Two shadows in flight at local, as many as its slots: the router counted only live
    attempts, saw local free, and sent a streamed coding request there to wait behind them
    (its first token 2.55 s late instead of 0.13 s, found in review). It now sees local
    full and the request overflows to the cloud."""
    with _running(tmp_path, shadows=2) as (r, local, cloud):
        client = sdk(r, timeout=60)
        assert [_served_by(client, MATH) for _ in range(2)] == ["cloud", "cloud"]
        must_reach(lambda: local.stats()["held"] == 2, "both shadows at local")
        local.control("faults", {"fault": None})  # live requests are not held
        assert _served_by(client, CODE, stream=True) == "cloud"
        local_load = status_extra(r)["resilience"]["backends"]["local"]
        assert (local_load["inflight"], local_load["replays_inflight"]) == (0, 2)  # no attempt
        assert chats(local) == 2 and local.stats()["held"] == 2  # only the two shadows
        assert local.stats()["peak_in_flight"] == SLOTS and chats(cloud) == 3
        local.control("release", {})
        must_reach(
            lambda: status_extra(r)["shadow"]["counts"].get("compared") == 2, "both compared"
        )
        must_reach(
            lambda: status_extra(r)["resilience"]["backends"]["local"]["replays_inflight"] == 0,
            "the shadows' slots given back",
        )
        assert _served_by(client, CODE, user="b") == "local"  # its slots are free again


def test_a_shadow_does_not_take_a_slot_live_traffic_and_shadows_fill(tmp_path: Path) -> None:
    """A live request holds one of local's two slots: one shadow may take the other, a
    second must not (live + shadows + 1 > max_concurrency), even with the shadow's own
    bound (3) not reached. Shadows uncounted, the second went to local as well."""
    with _running(tmp_path, shadows=3) as (r, local, _):
        client = sdk(r, timeout=60)
        live: list[str] = []
        waiting = threading.Thread(target=lambda: live.append(_served_by(client, CODE)))
        waiting.start()
        try:
            must_reach(lambda: local.stats()["held"] == 1, "the live request at local")
            assert _served_by(client, MATH) == "cloud"
            must_reach(lambda: local.stats()["held"] == 2, "the first shadow at local")
            assert _served_by(client, MATH) == "cloud"
            must_reach(
                lambda: status_extra(r)["shadow"]["counts"].get("dropped_saturated") == 1,
                "the second shadow dropped: local is full",
            )
            assert local.stats()["held"] == 2 and local.stats()["peak_in_flight"] == SLOTS
            assert status_extra(r)["shadow"]["in_flight"] == 1
        finally:
            local.control("release", {})
            waiting.join(timeout=60)
        assert live == ["local"]
        must_reach(lambda: status_extra(r)["shadow"]["counts"].get("compared") == 1, "one compared")
        assert chats(local) == 2  # the live request and the one shadow
