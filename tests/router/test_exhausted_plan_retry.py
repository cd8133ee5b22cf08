"""An exhausted plan's error lets the client's SDK retry a fast transient failure.

Every 502 of a plan whose backends all failed said `x-should-retry: false`, which the
openai and anthropic SDKs honour before their status rules: one transient 500 from a
named backend (or a route's only one) ended the client's call, where against that backend
itself the SDK would have retried twice with backoff (ragas 0.4.3 scored NaN after one
request, found live). A 5xx answer, a reset or a cut now carries no `x-should-retry` (the
SDK's own 5xx rule); a plan any of whose attempts a deadline ended keeps `false`, since a
retry waits the deadline out again (`router.plan_error.all_failed_fast`). Real sockets on
127.0.0.1: the router, two simulators (`local`, `cloud`; short deadlines), the official
openai SDK with its retries on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from tests.harness import Running, RunningRouter
from tests.router.faulty_pair import FAST, ask, faulty_pair


@pytest.fixture(scope="module")
def setup(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Running], RunningRouter]]:
    with faulty_pair(tmp_path_factory.mktemp("retry5xx")) as pair:
        yield pair


def _client(router: RunningRouter, retries: int) -> openai.OpenAI:
    """The SDK as an agent runs it, `retries` on."""
    http = httpx.Client(trust_env=False, timeout=30)
    return openai.OpenAI(base_url=router.url, api_key="none", max_retries=retries, http_client=http)


def _ask_faulted(
    setup: tuple[dict[str, Running], RunningRouter],
    faults: dict[str, dict[str, Any]],
    model: str,
    retries: int,
    stream: bool = False,
) -> tuple[str | None, Any]:
    """`ask` through the SDK, `retries` on, each backend of `faults` given its fault for the
    call and cleared after it."""
    backends, router = setup
    for name, fault in faults.items():
        backends[name].control("faults", fault)
    try:
        return ask(_client(router, retries), model, stream)
    finally:
        for name in faults:
            backends[name].control("faults", {"fault": None})


def _both(fault: str, **more: Any) -> dict[str, dict[str, Any]]:
    """The same fault on `local` and `cloud`."""
    return {name: {"fault": fault, **more} for name in ("local", "cloud")}


def _failed(server: Running) -> int:
    return int(server.stats()["by_fault"].get("server_error", 0))


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_one_500_from_a_named_backend_is_retried_by_the_sdk(
    setup: tuple[dict[str, Running], RunningRouter], stream: bool
) -> None:
    """A single 500 (the simulator's `times: 1`, a blip): the SDK's retry is served by the
    same backend (two requests reached it, the first of them failed)."""
    local = setup[0]["local"]
    before = local.completions(), _failed(local)
    fault = {"local": {"fault": "server_error", "times": 1}}
    served, error = _ask_faulted(setup, fault, "local", 2, stream)
    assert error is None, f"the SDK gave up: {error}"
    assert served == "local"
    assert (local.completions() - before[0], _failed(local) - before[1]) == (2, 1)


@pytest.mark.parametrize("fault", ["server_error", "reset", "cut_stream"])
def test_a_plan_that_failed_fast_leaves_the_retry_to_the_sdk(
    setup: tuple[dict[str, Running], RunningRouter], fault: str
) -> None:
    """Both backends of a route failing fast: a 502 with no `x-should-retry`, and the SDK
    (one retry) tries the whole plan again."""
    local, cloud = setup[0]["local"], setup[0]["cloud"]
    before = local.completions(), cloud.completions()
    served, error = _ask_faulted(setup, _both(fault), "coding", 1)
    assert served is None and isinstance(error, openai.APIStatusError)
    assert error.status_code == 502
    assert "x-should-retry" not in error.response.headers
    assert (local.completions() - before[0], cloud.completions() - before[1]) == (2, 2)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_hang_still_says_do_not_retry(
    setup: tuple[dict[str, Running], RunningRouter], stream: bool
) -> None:
    """A first token later than `first_token_s` (1.2 s here): retrying would wait it out
    again, so `x-should-retry: false`, and the SDK, retries on, sends one request."""
    local = setup[0]["local"]
    before = local.completions()
    fault = {"local": {"fault": "slow_first_token:5"}}
    served, error = _ask_faulted(setup, fault, "local", 2, stream)
    assert served is None and isinstance(error, openai.APIStatusError)
    assert error.status_code == 504
    assert error.response.headers["x-should-retry"] == "false"
    assert local.completions() - before == 1


def test_a_hang_beside_a_500_still_says_do_not_retry(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    """`local` hangs past `first_token_s`, then `cloud` answers 500: the 502 the client is
    told is cloud's, but a retry would wait out local's deadline again."""
    local, cloud = setup[0]["local"], setup[0]["cloud"]
    assert FAST["first_token_s"] < 5
    before = local.completions(), cloud.completions()
    faults = {"local": {"fault": "slow_first_token:5"}, "cloud": {"fault": "server_error"}}
    served, error = _ask_faulted(setup, faults, "coding", 2)
    assert served is None and isinstance(error, openai.APIStatusError)
    assert error.status_code == 502
    assert error.response.json()["error"]["code"] == "upstream_error"
    assert error.response.headers["x-should-retry"] == "false"
    assert (local.completions() - before[0], cloud.completions() - before[1]) == (1, 1)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_one_overload_naming_no_wait_on_every_backend_is_retried_by_the_sdk(
    setup: tuple[dict[str, Running], RunningRouter], stream: bool
) -> None:
    """Both backends answer one 503 with no `Retry-After` (vLLM's queue full, a blip): the
    router's 503 said `x-should-retry: false`, and the SDK gave up after one request, where
    against vLLM itself it would have retried (found live: openai 3.63, Genkit over openai
    4.104). Now its retry reaches the plan again and `local` serves it."""
    local, cloud = setup[0]["local"], setup[0]["cloud"]
    before = local.completions(), cloud.completions()
    served, error = _ask_faulted(setup, _both("server_error:503", times=1), "coding", 2, stream)
    assert error is None, f"the SDK gave up: {error}"
    assert served == "local"
    assert (local.completions() - before[0], cloud.completions() - before[1]) == (2, 1)


def test_an_overload_naming_no_wait_is_left_to_the_sdks_own_5xx_rule(
    setup: tuple[dict[str, Running], RunningRouter],
) -> None:
    """Both backends staying busy: a 503 `upstream_overloaded` with no `x-should-retry` and
    no wait, and the SDK's retries are bounded by its own count, one request per backend
    each, as many as it would send the backend itself (the router retries no 503)."""
    local, cloud = setup[0]["local"], setup[0]["cloud"]
    before = local.completions(), cloud.completions()
    served, error = _ask_faulted(setup, _both("server_error:503"), "coding", 1)
    assert served is None and isinstance(error, openai.APIStatusError)
    assert error.status_code == 503
    assert error.response.json()["error"]["code"] == "upstream_overloaded"
    headers = error.response.headers
    assert not {"x-should-retry", "retry-after", "retry-after-ms"} & set(headers)
    assert (local.completions() - before[0], cloud.completions() - before[1]) == (2, 2)
