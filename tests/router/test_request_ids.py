"""Request ids: shaped like uuid4().hex, unique in a process and across a fork; a client's
own id is adopted only when it looks like one; every answer names one, whoever gives it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

from router.record import new_request_id
from tests.harness import Collect, RunningRouter, config_for, router, simulator


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


NEAR_MISSES = [  # Starlette's redirect of a trailing slash, and what no handler names an id on
    ("POST", "/v1/chat/completions/", 307),
    ("POST", "/v1/responses/", 307),
    ("GET", "/v1/models", 200),
    ("GET", "/healthz", 200),
]


@pytest.mark.parametrize(("method", "path", "status"), NEAR_MISSES)
def test_every_answer_names_a_request_id_a_redirect_too(
    proxy: RunningRouter, method: str, path: str, status: int
) -> None:
    """A 307 to the path without its trailing slash went out with no `x-request-id` (found
    in review): a user who reports it has no id to quote. The client's own is adopted."""
    send = {"method": method, "url": proxy.root + path, "timeout": 10}
    own = httpx.request(**send, headers={"x-request-id": "report-7"}, content=b"{}")
    made = httpx.request(**send, content=b"{}")
    assert (own.status_code, made.status_code) == (status, status), made.text
    assert own.headers.get("x-request-id") == "report-7"
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers.get("x-request-id", ""))
    assert "request-id" not in made.headers  # Anthropic's name is for Anthropic's paths
