"""A backend that stops answering ends its canary round after two cases, whoever noticed:
the eval runner's own timeout, or something nearer the backend that gave up first and said
so (a litellm backend's `timeouts`, a proxy's 504). Counting the runner's alone, every case
of such a backend cost that shorter timeout and nothing was skipped (found in review)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from evals.endpoint import Endpoint, TransportProblem, ask
from evals.suite import SHIPPED, load
from router.canary import Canary
from router.canary_bound import UNANSWERED, Bounded, RunEnd
from router.canary_cli import error_details
from router.config import Config, parse
from router.gating import GateBook
from tests.canary.rounds import one_round
from tests.canary.servers import free_port, simulator
from tests.harness import INTENTS, Running, openai_via_litellm
from tests.ports import on_a_free_port

CASES = 5
NOT_ASKED = f"not asked: {UNANSWERED} cases in a row got no reply in time"


@contextmanager
def _answering(status: int, after_s: float) -> Iterator[tuple[Running, list[str]]]:
    """A server that answers every POST `status` after `after_s` (a proxy giving up on its
    upstream: nginx's 504 after its read timeout), and the paths it was asked."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            asked.append(self.path)
            time.sleep(after_s)
            body = f"<html>{status} from the proxy</html>".encode()
            self.send_response(status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = on_a_free_port(
        lambda port: ThreadingHTTPServer(("127.0.0.1", port), Handler), free_port
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        root = f"http://127.0.0.1:{server.server_address[1]}"
        yield Running(f"{root}/v1", root), asked
    finally:
        server.shutdown()
        server.server_close()


def _config(backend: dict[str, Any]) -> Config:
    """One backend, `CASES` cases in a row, and a canary timeout far past what the test
    waits: only a bound that counts the backend's own timeouts ends the round in time."""
    canary = {"suites": str(SHIPPED / "math"), "sample_per_suite": CASES, "concurrency": 1}
    return parse(
        {
            "backends": [backend],
            "routes": {intent: [backend["name"]] for intent in INTENTS},
            "resilience": {"enabled": False},
            "canary": {**canary, "timeout_s": 60},
        }
    )


def _round(config: Config) -> tuple[dict[str, Any], dict[str, int], float]:
    """One canary round: its summary, its error details with their counts, its seconds."""
    canary = Canary(config, load(SHIPPED / "math"), GateBook({}))

    began = time.monotonic()
    one_round(canary)
    (backend,) = config.backends
    common = dict(error_details(canary.last_results[backend.name]))
    return canary.last_run[backend.name], common, time.monotonic() - began


def test_a_litellm_backends_own_timeout_counts_as_no_reply() -> None:
    """The repro: `timeouts.total_s` under `canary.timeout_s`, the adapter's `timeout`
    error reached the bound as a transport error, and all 11 cases were asked."""
    with simulator(profile="vllm", model="local-model") as sim:
        backend = openai_via_litellm("cloudy", sim.url, "local-model+no_response")
        config = _config(backend | {"timeouts": {"total_s": 0.5}})
        run, details, took = _round(config)
        asked = sim.completions()
    assert asked == UNANSWERED  # the other cases never reached the backend
    assert (run["cases"], run["errors"]) == (CASES, CASES)
    assert details.pop(NOT_ASKED) == CASES - UNANSWERED
    assert sum(details.values()) == UNANSWERED  # litellm's words say the time each took
    assert all(said.startswith("timeout: Request timed out") for said in details)
    assert all("time taken=" in said for said in details)
    assert took < 30  # two of the backend's timeouts, never the canary's 60 s


@pytest.mark.parametrize("status", [504, 408])
def test_a_proxys_timeout_status_counts_as_no_reply(status: int) -> None:
    """A reverse proxy in front of vLLM answers 504 once its own read timeout passes."""
    with _answering(status, after_s=0.2) as (proxy, asked):
        config = _config({"name": "vllm", "tier": "local", "base_url": proxy.url, "model": "m"})
        run, details, took = _round(config)
    assert asked == ["/v1/chat/completions"] * UNANSWERED
    assert (run["cases"], run["errors"]) == (CASES, CASES)
    assert details == {
        f"HTTP {status}: <html>{status} from the proxy</html>": UNANSWERED,
        NOT_ASKED: CASES - UNANSWERED,
    }
    assert took < 30


def test_other_http_errors_are_not_a_hang() -> None:
    """A 502 is an answer, however bad: every case is still asked."""
    with _answering(502, after_s=0) as (proxy, asked):
        config = _config({"name": "vllm", "tier": "local", "base_url": proxy.url, "model": "m"})
        run, details, _ = _round(config)
    assert len(asked) == CASES and run["errors"] == CASES
    assert details == {"HTTP 502: <html>502 from the proxy</html>": CASES}


async def test_only_no_reply_in_time_counts_and_only_an_answer_resets_the_count() -> None:
    """Quick failures neither count nor reset the count; a reply resets it."""
    late = TransportProblem("HTTP 504", timed_out=True)
    quick = TransportProblem("HTTP 502")
    script: list[BaseException | dict[str, Any]] = [late, quick, {}, late, quick, TimeoutError()]
    sent: list[object] = []

    async def send(body: dict[str, Any]) -> Any:
        outcome = script[len(sent)]
        sent.append(outcome)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    bounded = Bounded(send, RunEnd())
    for outcome in script:
        if isinstance(outcome, BaseException):
            with pytest.raises(type(outcome)):
                await bounded({})
        else:
            assert await bounded({}) == outcome
    with pytest.raises(TransportProblem, match=NOT_ASKED):
        await bounded({})
    assert len(sent) == len(script)


@pytest.mark.parametrize(
    ("failure", "timed_out"),
    [
        (httpx.ReadTimeout("read"), True),
        (httpx.ConnectTimeout("connect"), True),
        (httpx.ConnectError("refused"), False),
    ],
)
async def test_an_http_clients_timeout_says_no_reply_in_time(
    failure: httpx.HTTPError, timed_out: bool
) -> None:
    def transport(request: httpx.Request) -> httpx.Response:
        raise failure

    async with httpx.AsyncClient(transport=httpx.MockTransport(transport)) as client:
        with pytest.raises(TransportProblem) as problem:
            await ask(client, Endpoint("http://127.0.0.1:18999/v1", "m"), {})
    assert problem.value.timed_out is timed_out
