"""Request ids: shaped like uuid4().hex, unique in a process and across a fork; a client's
own id is adopted only when it looks like one."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx

from router.record import new_request_id
from tests.harness import Collect, config_for, router, simulator


def test_ids_are_32_hex_digits_and_unique() -> None:
    ids = [new_request_id() for _ in range(10_000)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_a_forked_child_draws_its_own_prefix() -> None:
    parent = new_request_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next id, then leave without running pytest's exit
        os.write(write, new_request_id().encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert re.fullmatch(r"[0-9a-f]{32}", child)
    assert child[:20] != parent[:20]  # another 80-bit prefix, not the parent's next count


def test_a_client_request_id_is_adopted_only_when_it_looks_like_one(tmp_path: Path) -> None:
    """A 20,000-character `x-request-id` became the ledger's request id, the log line's and
    the reply's header (found in review)."""
    sent = ("trace-7:a.b_c", "r" * 20_000, "x" * 129, "two words", "")
    body = {"model": "local", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3}
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        collect = Collect()
        proxy.components.gateway.sinks.append(collect)
        answered = [
            httpx.post(
                f"{proxy.url}/chat/completions", json=body, headers={"x-request-id": i}, timeout=10
            ).headers["x-request-id"]
            for i in sent
        ]
    assert answered[0] == "trace-7:a.b_c"
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in answered[1:])
    assert [r.request_id for r in collect.records] == answered
