"""Real servers on 127.0.0.1 for tests: the router and simulators, in threads (the router
as a command: `tests.processes`).

A server in a thread has its own event loop, so the official sync `openai` client in the
test thread talks to it over a real socket, exactly as an agent would.
"""

from __future__ import annotations

import asyncio
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
from prometheus_client.parser import text_string_to_metric_families

from router.app import create_app
from router.components import Components, build
from router.config import Config, parse
from router.serve import DrainingServer, uvicorn_config
from router.simulator import SimSettings, running
from tests.ports import free_port as free_port  # re-exported: tests import it from here
from tests.ports import listening
from tests.waiting import wait_for as wait_for  # re-exported: tests import it from here
from tests.waiting import wait_until as wait_until

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
# Every intent the classifier names: a config routing them all needs no default routes.
INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


@dataclass
class Running:
    url: str  # base URL ending in /v1 for backends and the router
    root: str  # without /v1

    def control(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(f"{self.root}/sim/{path}", json=body, timeout=5, trust_env=False)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def stats(self) -> dict[str, Any]:
        stats = httpx.get(f"{self.root}/sim/stats", timeout=5, trust_env=False)
        result: dict[str, Any] = stats.json()
        return result

    def completions(self, path: str = "/v1/chat/completions") -> int:
        """Requests the backend saw on one API path (health probes and scrapes excluded)."""
        return int(self.stats()["by_path"].get(path, 0))


class _LoopThread:
    """Runs one coroutine on a private event loop in a daemon thread."""

    def __init__(self, make: Coroutine[Any, Any, Any]) -> None:
        self.loop = asyncio.new_event_loop()
        self._task: asyncio.Task[Any] | None = None
        self._make = make
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._task = self.loop.create_task(self._make)
        try:
            self.loop.run_until_complete(self._task)
        except (asyncio.CancelledError, Exception):
            pass
        finally:
            self.loop.close()

    def stop(self) -> None:
        def cancel() -> None:
            if self._task is not None:
                self._task.cancel()

        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(cancel)
        self.thread.join(timeout=10)


class Collect:
    """A ledger sink that keeps the finished records (a record is finished after the reply)."""

    def __init__(self) -> None:
        self.records: list[Any] = []

    def record_finished(self, record: Any) -> None:
        self.records.append(record)

    def wait(self, deadline_s: float) -> Any:
        end = time.monotonic() + deadline_s
        while not self.records and time.monotonic() < end:
            time.sleep(0.02)
        assert self.records, f"no record within {deadline_s} s"
        return self.records[0]


class Attempts:
    """A dispatcher observer: which attempts run, how many still do, how the ended ones ended."""

    def __init__(self) -> None:
        self.running = 0
        self.started: list[str] = []
        self.ended: list[str | None] = []  # error kinds, None for a success
        self.finished: list[tuple[str, str | None]] = []  # (backend, error kind)

    def attempt_started(self, backend: str, tier: str) -> None:
        self.running += 1
        self.started.append(backend)

    def attempt_finished(
        self, backend: str, tier: str, outcome: str, error_kind: str | None
    ) -> None:
        self.running -= 1
        self.ended.append(error_kind)
        self.finished.append((backend, error_kind))


def breaks_on_call(n: int, real: Callable[..., Any]) -> Callable[..., Any]:
    """`real`, except that its n-th call raises ZeroDivisionError: a bug of ours, on cue."""
    calls = 0

    def maybe_broken(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == n:
            raise ZeroDivisionError("a bug")
        return real(*args, **kwargs)

    return maybe_broken


@dataclass(frozen=True)
class Scrape:
    """One `GET /metrics` of a server, as samples: several values read from one instant."""

    samples: dict[tuple[str, frozenset[tuple[str, str]]], float]

    def get(self, name: str, **labels: str) -> float | None:
        """A sample's value, or None while that series does not exist."""
        return self.samples.get((name, frozenset(labels.items())))


def scrape(root: str) -> Scrape:
    text = httpx.get(f"{root}/metrics", timeout=5, trust_env=False).text
    return Scrape(
        {
            (sample.name, frozenset(sample.labels.items())): float(sample.value)
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }
    )


@contextmanager
def silent_server() -> Iterator[Running]:
    """A backend that accepts connections and never answers (a hung box, dropped packets):
    the kernel completes the handshakes into the listen backlog and nothing reads them."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        root = f"http://127.0.0.1:{sock.getsockname()[1]}"
        yield Running(f"{root}/v1", root)


def collected(proxy: RunningRouter) -> Collect:
    """A sink on the router's gateway that keeps every record it finishes from now on."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    return records


def chat_chunk(index: int, content: str, finish: str | None = None) -> bytes:
    """One `data:` event of a chat stream: choice `index` says `content`."""
    choice = {"index": index, "delta": {"content": content}, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return b"data: " + orjson.dumps(body | {"choices": [choice]}) + b"\n\n"


@contextmanager
def scripted_stream(body: bytes, content_type: str = "text/event-stream") -> Iterator[Running]:
    """An upstream that answers every POST with `body` as its event stream (or, given
    `content_type="application/json"`, as its whole reply)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Handler) as server:
        yield server


@contextmanager
def upstream(
    handler: type[socketserver.BaseRequestHandler],
    server_class: type[socketserver.ThreadingTCPServer] = ThreadingHTTPServer,
) -> Iterator[Running]:
    """A fake upstream on 127.0.0.1 answering with `handler` (a raw `ThreadingTCPServer`
    for bytes no HTTP server would send), for the shapes no simulator profile speaks."""
    server = server_class(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        root = f"http://127.0.0.1:{server.server_address[1]}"
        yield Running(f"{root}/v1", root)
    finally:
        server.shutdown()
        server.server_close()


def send_json(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    """A fake upstream's whole JSON reply."""
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def read_body(handler: socketserver.StreamRequestHandler) -> bytes:
    """The request body a raw socket upstream was sent, past its head (`content-length`)."""
    length = 0
    while line := handler.rfile.readline().strip():
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return handler.rfile.read(length)


# OpenAI's completions model: the cloud simulator, which plays OpenAI, serves `/v1/completions`
# for such a model only (`router.openai_models`), its chat models answering it with a 404.
INSTRUCT = "gpt-3.5-turbo-instruct"


@contextmanager
def simulator(**settings: Any) -> Iterator[Running]:
    settings.setdefault("keep_requests", 1)  # its body at /sim/stats as last_request
    with running(SimSettings(**settings)) as root:
        yield Running(f"{root}/v1", root)


def litellm_backend(name: str, model: str, base_url: str) -> dict[str, Any]:
    """A cloud litellm backend for `model` (`provider/name`) at `base_url`."""
    return {
        "name": name,
        "tier": "cloud",
        "kind": "litellm",
        "base_url": base_url,
        "model": model,
        "api_key_env": "HOME",  # any set variable: the simulators take any key
    }


def claude_backend(server: Running) -> dict[str, Any]:
    """A litellm backend (Anthropic Messages on the wire) on an `anthropic`-profile simulator."""
    return litellm_backend("claude", "anthropic/claude-sonnet-4-5", server.root)


def claude_beside(claude: Running, name: str, other: Running, ledger_dir: Path) -> Config:
    """`claude` on a simulator and `name`, the same litellm backend at another upstream
    (one that sends what no simulator does), every route on `claude`, no breaker: one
    failure after another can be looked at."""
    return parse(
        {
            "backends": [claude_backend(claude), {**claude_backend(other), "name": name}],
            "routes": {intent: ["claude"] for intent in INTENTS},
            "ledger": {"path": str(ledger_dir / "ledger")},
            "resilience": {"enabled": False},
        }
    )


def openai_via_litellm(name: str, url: str, model: str) -> dict[str, Any]:
    """A litellm backend speaking OpenAI's chat (`openai/<model>`) to `url` (ending in /v1)."""
    return litellm_backend(name, f"openai/{model}", url)


def claude_then_local(
    claude: Running, local: Running, ledger_dir: Path, resilience: dict[str, Any]
) -> Config:
    """Every route on `claude` (litellm, Anthropic's Messages on the wire), then `local`
    behind it, with `resilience` as the test needs the breaker."""
    return parse(
        {
            "backends": [claude_backend(claude), local_backend(local)],
            "routes": {intent: ["claude", "local"] for intent in INTENTS},
            "ledger": {"path": str(ledger_dir / "ledger")},
            "resilience": resilience,
        }
    )


def local_backend(server: Running) -> dict[str, Any]:
    """A plain `local` backend on a simulator serving `local-model`."""
    return {"name": "local", "tier": "local", "base_url": server.url, "model": "local-model"}


def sdk(proxy: Running, timeout: float | None = None) -> openai.OpenAI:
    """The official client on the router, without retries: a test sees each answer as sent.
    No `timeout` keeps the SDK's own."""
    if timeout is None:
        return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0, timeout=timeout)


def config_for(
    backends: dict[str, Running],
    tmp: Path,
    timeouts: dict[str, float] | None = None,
    models: dict[str, str] | None = None,
    **extra: Any,
) -> Config:
    """local (vLLM-like) and cloud backends pointing at simulators, with short deadlines;
    `timeouts` overrides some of them for every backend. Each backend's model is
    `<name>-model`, or the one `models` gives it (the simulator must serve the same)."""
    timeouts = {
        "connect_s": 2,
        "first_token_s": 2,
        "idle_s": 1.5,
        "total_s": 20,
        **(timeouts or {}),
    }
    specs = []
    for name, server in backends.items():
        tier = "local" if name.startswith("local") else "cloud"
        specs.append(
            {
                "name": name,
                "tier": tier,
                "base_url": server.url,
                "model": (models or {}).get(name, f"{name}-model"),
                "timeouts": timeouts,
                "retry_after_max_s": 0.5,
            }
        )
    data: dict[str, Any] = {
        "backends": specs,
        "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
    }
    if set(backends) != {"local", "cloud"}:
        names = list(backends)
        data["routes"] = {i: names for i in INTENTS}
    # Health probes and circuits would change what the simulators count; tests that want
    # them pass `resilience=...`.
    data["resilience"] = {"enabled": False}
    data.update(extra)
    return parse(data)


@dataclass
class RunningRouter(Running):
    components: Components = field(repr=False)


@contextmanager
def router(
    config: Config,
    port: int | socket.socket | None = None,
    wrap: Callable[[Any], Any] | None = None,
) -> Iterator[RunningRouter]:
    """The router in a thread, on `port` (default: any free one), or on the socket `port`
    listening already (a port of a range, bound at its pick: `tests.canary.servers.router`);
    leaving it stops the router as a SIGTERM stops `serve` (uvicorn's `should_exit`, the
    components told as the drain starts, then the lifespan). `wrap`: an ASGI app around the
    router's, between it and uvicorn (a test that watches or holds what the router sends)."""
    with port if isinstance(port, socket.socket) else listening(port or 0) as sock:
        port = int(sock.getsockname()[1])
        components = build(config)
        components.listen = f"127.0.0.1:{port}"  # as `serve` says where it listens
        app = create_app(config, components)
        app = wrap(app) if wrap is not None else app
        settings = uvicorn_config(app, config, "127.0.0.1", port)  # as `smf-router serve` runs
        settings.timeout_graceful_shutdown = 5
        server = DrainingServer(settings, components.shutting_down)  # no heap settling: tests
        runner = _LoopThread(server.serve([sock]))
        root = f"http://127.0.0.1:{port}"
        try:
            wait_for(f"{root}/healthz", 90)  # a litellm backend imports litellm first
            yield RunningRouter(f"{root}/v1", root, components)
        finally:
            server.should_exit = True
            runner.thread.join(timeout=15)
