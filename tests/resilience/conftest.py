"""Shared pieces for resilience tests: fast breaker settings, a local and a cloud simulator,
small request helpers, and config files to reload."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from router.config import parse
from router.ledger import Ledger
from tests.harness import INTENTS, Running, RunningRouter, config_for, router, sdk, simulator

FAST = {
    "failure_threshold": 3,
    "open_s": 0.3,
    "max_open_s": 1.0,
    "probe_interval_s": 0.5,
    "probe_timeout_s": 0.5,
    "capacity_poll_s": 0.2,
}
CODING = [{"role": "user", "content": "Write a Python function that adds two numbers."}]


def chat(url: str, model: str = "coding", **extra: Any) -> httpx.Response:
    headers = extra.pop("headers", {})
    body = {"model": model, "messages": CODING, **extra}
    return httpx.post(
        f"{url}/chat/completions", json=body, headers=headers, timeout=30, trust_env=False
    )


def status(root: str) -> dict[str, Any]:
    response = httpx.get(f"{root}/v1/router/status", timeout=5, trust_env=False)
    result: dict[str, Any] = response.json()
    return result


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def model_ids(url: str, headers: dict[str, str] | None = None) -> list[str]:
    return [m["id"] for m in httpx.get(f"{url}/models", headers=headers or {}).json()["data"]]


def until(check: Callable[[], bool], limit_s: float = 20.0, what: str = "condition") -> None:
    """Poll `check` until true; fails after a generous bound (a hang guard, not a speed test)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {limit_s} s")


def backend_state(root: str, backend: str) -> dict[str, Any]:
    """`backend`'s part of the router's resilience status: its circuit, failures in a row,
    requests in flight."""
    state: dict[str, Any] = status(root)["extra"]["resilience"]["backends"][backend]
    return state


def ledger_row(
    proxy: RunningRouter, request_id: str, columns: Sequence[str]
) -> dict[str, Any] | None:
    """The request's ledger row as its files hold it, its `columns` (None before it is
    written); its `attempts` as (backend, outcome, error_kind)."""
    assert proxy.components.ledger is not None
    proxy.components.ledger.flush()
    with Ledger(Path(proxy.components.config.ledger.path)) as ledger:
        found = ledger.sql(
            f"SELECT {', '.join(columns)} FROM records WHERE request_id = ?", [request_id]
        )
    if not found:
        return None
    row = dict(zip(columns, found[0], strict=True))
    row["attempts"] = [(a["backend"], a["outcome"], a["error_kind"]) for a in row["attempts"]]
    return row


def circuit(root: str, backend: str) -> str:
    return str(backend_state(root, backend)["circuit"])


def give_up(client: openai.OpenAI, n: int, **ask: Any) -> None:
    """`n` coding requests (streamed unless `ask` says otherwise) that `client`, with a
    timeout shorter than the backend takes, gives up on before any answer: an impatient
    person, one after another."""
    body: Any = {"model": "coding", "messages": CODING, "stream": True, **ask}
    for _ in range(n):
        with pytest.raises(openai.APITimeoutError):
            client.chat.completions.create(**body)


def without(data: dict[str, Any], name: str) -> dict[str, Any]:
    """Config `data` without backend `name`, in the backends and the routes."""
    backends = [b for b in data["backends"] if b["name"] != name]
    routes = {i: [n for n in names if n != name] for i, names in data["routes"].items()}
    return {**data, "backends": backends, "routes": routes}


@contextmanager
def with_one_to_remove(tmp_path: Path) -> Iterator[tuple[dict[str, Any], RunningRouter]]:
    """`local`, `local_gone` and `cloud` simulators behind a router with fast resilience,
    and its config as data: for reloads that drop `local_gone` while a probe or poll runs."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="local-model") as gone,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers = {"local": local, "local_gone": gone, "cloud": cloud}
        data = config_for(servers, tmp_path, resilience=FAST).model_dump(mode="json")
        with router(parse(data)) as proxy:
            yield data, proxy


@contextmanager
def local_and_cloud(
    make: Callable[..., AbstractContextManager[Running]] = simulator, **local: Any
) -> Iterator[dict[str, Running]]:
    """A local vLLM simulator (with the settings `local`) and a cloud one, as `make` runs
    them (`tests.canary.servers.simulator` for ports 18000-18999)."""
    with (
        make(profile="vllm", model="local-model", **local) as vllm,
        make(profile="cloud", model="cloud-model") as cloud,
    ):
        yield {"local": vllm, "cloud": cloud}


@pytest.fixture
def pair() -> Iterator[dict[str, Running]]:
    """`local_and_cloud` as they start (a test module may define its own)."""
    with local_and_cloud() as servers:
        yield servers


def cloud_first(pair: dict[str, Running], tmp_path: Path, retry_after_max_s: float = 0.5) -> Any:
    """Every route on cloud, then local; a `Retry-After` over `retry_after_max_s` (0.5:
    `config_for`'s) is a wait kept, not slept out."""
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    data = config_for(pair, tmp_path, routes=routes, resilience=FAST).model_dump(mode="json")
    for backend in data["backends"]:
        backend["retry_after_max_s"] = retry_after_max_s
    return parse(data)


def ask_coding(proxy: RunningRouter) -> Any:
    """One chat request through the SDK (no retries of its own): the raw response."""
    return sdk(proxy).chat.completions.with_raw_response.create(
        model="coding", messages=[{"role": "user", "content": CODING[0]["content"]}]
    )


def explained_skips(proxy: RunningRouter) -> list[dict[str, str]]:
    """The backends `POST /v1/router/explain` says a coding request would pass by."""
    body = {"model": "coding", "messages": CODING}
    explained = httpx.post(f"{proxy.url}/router/explain", json=body, trust_env=False).json()
    skipped: list[dict[str, str]] = explained["skipped"]
    return skipped
