"""A backend's 503 that names a wait reaches the client with it: the router dropped the
`Retry-After` an overloaded provider or proxy sent and said `x-should-retry: false`, so the
client's SDK gave up on a backend that asked for seconds. A short wait is now told with
`x-should-retry: true` (the SDK waits it out, then retries), a long one with `false` (not
for an SDK to sleep through silently), as for the router's own 503 `no_backend_available`;
so is a long 429's (`false`), and a 429 chosen over an overload tells the sooner of the
two waits (only a short one when a backend named none, whatever the plan's order). Real
sockets on 127.0.0.1: the router, simulators, the official openai SDK."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from router.attempt_errors import Overloaded, RateLimited, UpstreamError
from router.config import parse
from router.plan_error import most_meaningful
from tests.harness import (
    INTENTS,
    Running,
    claude_backend,
    config_for,
    router,
    simulator,
)

HELLO: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "Write a Python function that adds two numbers."}
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Running, str]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path_factory.mktemp("busy"))) as p,
    ):
        yield local, cloud, p.url


def _overloaded(url: str, model: str, stream: bool, retries: int = 0) -> openai.APIStatusError:
    client = openai.OpenAI(base_url=url, api_key="none", max_retries=retries, timeout=30)
    with pytest.raises(openai.APIStatusError) as info:
        if stream:  # the 503 comes before the first byte: the same answer, headers and all
            with client.chat.completions.create(model=model, messages=HELLO, stream=True) as s:
                list(s)
        else:
            client.chat.completions.create(model=model, messages=HELLO)
    error = info.value
    assert error.status_code == 503
    assert error.response.json()["error"]["code"] == "upstream_overloaded"
    return error


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(
    ("fault", "retry_after", "should_retry"),
    [
        ("overloaded:7", "7", "true"),  # under a minute: the SDK waits it out, then retries
        ("overloaded:2.5", "3", "true"),
        ("overloaded:600", "600", "false"),  # the agent's or its user's to wait for
        ("server_error:503", None, None),  # no wait named: the SDK's own 5xx rule
    ],
)
def test_a_backends_503_passes_on_its_retry_after(
    setup: tuple[Running, Running, str],
    fault: str,
    retry_after: str | None,
    should_retry: str | None,
    stream: bool,
) -> None:
    local, _, url = setup
    local.control("faults", {"fault": fault})
    try:
        headers = _overloaded(url, "local", stream).response.headers
    finally:
        local.control("faults", {"fault": None})
    assert headers.get("x-should-retry") == should_retry
    assert headers.get("retry-after") == retry_after
    if retry_after is None:
        assert "retry-after-ms" not in headers
    else:
        wait = float(fault.partition(":")[2])
        assert headers["retry-after-ms"] == str(round(wait * 1000))


def test_an_overloaded_plan_tells_the_soonest_wait(setup: tuple[Running, Running, str]) -> None:
    """Every backend overloaded: the client hears the wait of the one back soonest, as after
    rate limits, in OpenAI's envelope and in Anthropic's alike."""
    local, cloud, url = setup
    local.control("faults", {"fault": "overloaded:600"})
    cloud.control("faults", {"fault": "overloaded:4"})
    try:
        chat = _overloaded(url, "coding", stream=False).response
        messages = httpx.post(
            f"{url}/messages",
            json={"model": "coding", "max_tokens": 16, "messages": HELLO},
            timeout=30,
            trust_env=False,
        )
    finally:
        local.control("faults", {"fault": None})
        cloud.control("faults", {"fault": None})
    assert messages.status_code == 503
    assert messages.json()["error"]["type"] == "overloaded_error"
    for response in (chat, messages):
        assert response.headers["retry-after"] == "4"
        assert response.headers["x-should-retry"] == "true"


def test_the_openai_sdk_waits_out_a_short_overload_and_retries(
    setup: tuple[Running, Running, str],
) -> None:
    """Told `x-should-retry: false`, the SDK never retried; told the backend's own short
    wait, its retry goes through the router to the backend again."""
    local, _, url = setup
    before = local.completions()
    local.control("faults", {"fault": "overloaded:0.5"})
    try:
        _overloaded(url, "local", stream=False, retries=1)
    finally:
        local.control("faults", {"fault": None})
    assert local.completions() - before == 2


def test_a_providers_503_through_litellm_keeps_its_retry_after(tmp_path: Path) -> None:
    """litellm's exception carries a response of its own: the upstream's headers are read
    where a rate limit's are (`litellm_response_headers`)."""
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as claude:
        config = parse(
            {
                "backends": [claude_backend(claude)],
                "routes": {intent: ["claude"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        claude.control("faults", {"fault": "overloaded:7"})
        with router(config) as proxy:
            headers = _overloaded(proxy.url, "claude", stream=False).response.headers
    assert (headers["retry-after"], headers["x-should-retry"]) == ("7", "true")


def _refused(url: str, model: str) -> httpx.Response:
    """The router's answer to a plain chat request, whatever its status."""
    return httpx.post(
        f"{url}/chat/completions",
        json={"model": model, "messages": HELLO},
        timeout=30,
        trust_env=False,
    )


@pytest.mark.parametrize("limit", ["rate_limit:600", "rate_limit_no_retry_after"])
def test_a_rate_limit_tells_an_overloads_sooner_wait(
    setup: tuple[Running, Running, str], limit: str
) -> None:
    """Local overloaded for 3 s, cloud rate-limited for 10 minutes or for a time it does not
    name: the 429 is still the answer, but its wait is local's, when a backend may take the
    request again. It said 600 s (the Anthropic SDK slept them, twice), or nothing."""
    local, cloud, url = setup
    local.control("faults", {"fault": "overloaded:3"})
    cloud.control("faults", {"fault": limit})
    try:
        response = _refused(url, "coding")
    finally:
        local.control("faults", {"fault": None})
        cloud.control("faults", {"fault": None})
    assert response.status_code == 429, response.text
    assert response.json()["error"]["code"] == "rate_limit_exceeded"
    assert (response.headers["retry-after"], response.headers["retry-after-ms"]) == ("3", "3000")
    assert "x-should-retry" not in response.headers  # the SDK retries a 429 on its own


@pytest.mark.parametrize(
    ("fault", "should_retry"),
    [
        ("rate_limit:600", "false"),  # as a 503's: not for the SDK to sleep through silently
        ("rate_limit:59.4", "false"),  # told as 60 s
        ("rate_limit:7", None),  # the SDK waits it out and retries, as ever
    ],
)
def test_a_long_rate_limit_says_not_to_retry(
    setup: tuple[Running, Running, str], fault: str, should_retry: str | None
) -> None:
    """A 429 of 10 minutes went out with no `x-should-retry`, so the Anthropic SDK (Claude
    Code) slept 600 s without a word, while a 503 with the same wait said `false`."""
    local, _, url = setup
    local.control("faults", {"fault": fault})
    try:
        response = _refused(url, "local")
    finally:
        local.control("faults", {"fault": None})
    assert response.status_code == 429, response.text
    assert response.headers["retry-after"] == str(math.ceil(float(fault.partition(":")[2])))
    assert response.headers.get("x-should-retry") == should_retry


@pytest.mark.parametrize("wait", ["0", "0.2"])
def test_an_overload_is_told_at_least_a_second(
    setup: tuple[Running, Running, str], wait: str
) -> None:
    """A backend's `Retry-After: 0` went out as `retry-after: 0` with `x-should-retry:
    true`: an exhausted plan retried at once. The router's own 503 says at least 1 s."""
    local, _, url = setup
    local.control("faults", {"fault": f"overloaded:{wait}"})
    try:
        headers = _overloaded(url, "local", stream=False).response.headers
    finally:
        local.control("faults", {"fault": None})
    assert (headers["retry-after"], headers["retry-after-ms"]) == ("1", "1000")
    assert headers["x-should-retry"] == "true"


@pytest.mark.parametrize(
    ("local_fault", "cloud_fault", "status"),
    [
        ("rate_limit_no_retry_after", "overloaded:90", 429),
        ("overloaded:90", "rate_limit_no_retry_after", 429),
        ("server_error:503", "overloaded:90", 503),  # an overload chosen naming no wait
        # the same sets, the one naming a wait first (found in re-review: 90 s, "do not retry")
        ("rate_limit:90", "rate_limit_no_retry_after", 429),
        ("overloaded:90", "server_error:503", 503),
    ],
)
def test_an_error_naming_no_wait_takes_no_long_wait_from_another_backend(
    setup: tuple[Running, Running, str], local_fault: str, cloud_fault: str, status: int
) -> None:
    """A 429 naming no wait beside a backend overloaded for 90 s went out with retry-after 90
        and `x-should-retry: false`: the SDKs gave up, where they had retried on their own
        backoff; and a 429 naming 90 s, first in the plan beside one naming none, still did.
    Beside a backend that named none, a wait is told only when short (as above, 3 s)."""
    local, cloud, url = setup
    local.control("faults", {"fault": local_fault})
    cloud.control("faults", {"fault": cloud_fault})
    try:
        response = _refused(url, "coding")
    finally:
        local.control("faults", {"fault": None})
        cloud.control("faults", {"fault": None})
    assert response.status_code == status, response.text
    assert "retry-after" not in response.headers and "retry-after-ms" not in response.headers
    # as with no other backend: the SDK's own rule (a 429's, or a 5xx's as for vLLM's 503)
    assert "x-should-retry" not in response.headers


def _waiting(kind: str, wait: float | None, backend: str) -> UpstreamError:
    if kind == "429":
        return RateLimited("slow down", backend=backend, retry_after=wait)
    return Overloaded("busy", backend=backend, retry_after=wait)


@pytest.mark.parametrize(
    ("first", "second", "told"),
    [
        (("429", None), ("429", 90.0), None),  # one may take a request any moment
        (("503", None), ("503", 90.0), None),
        (("429", None), ("503", 59.4), None),  # told as 60 s: long
        (("503", None), ("503", 59.0), 59.0),  # short: told, with `x-should-retry: true`
        (("429", None), ("429", 3.0), 3.0),
        (("429", 600.0), ("503", 90.0), 90.0),  # every one named a wait: the soonest
    ],
)
@pytest.mark.parametrize("order", ["as_listed", "reversed"])
def test_the_wait_told_does_not_depend_on_the_plans_order(
    first: tuple[str, float | None],
    second: tuple[str, float | None],
    told: float | None,
    order: str,
) -> None:
    """Routes [a, b] with a 429 naming no wait and a 429 naming 90 s answered a 429 with no
    wait (the SDK retried), routes [b, a] 90 s and `x-should-retry: false` (found in
    re-review). The wait told is decided on the set of errors."""
    errors = [_waiting(*first, backend="a"), _waiting(*second, backend="b")]
    chosen = most_meaningful(errors if order == "as_listed" else errors[::-1])
    assert isinstance(chosen, RateLimited | Overloaded)
    assert chosen.retry_after == told


@pytest.mark.parametrize(
    ("answers", "told"),
    [
        ([("a", "429", 0.5), ("a", "429", 90.0)], 90.0),  # the backend's latest says 90 s
        ([("a", "429", 0.5), ("a", "429", None)], None),  # ... none: any moment
        ([("a", "429", 0.5), ("a", "429", 90.0), ("b", "503", 30.0)], 30.0),
        ([("a", "429", 0.5), ("a", "429", 90.0), ("b", "429", 2.0)], 2.0),
    ],
)
def test_a_retried_backend_tells_its_latest_wait(
    answers: list[tuple[str, str, float | None]], told: float | None
) -> None:
    """After a short 429 the same backend is retried, so the errors may hold two answers
    from one backend: a first 0.5 s and a second 90 s told the client 0.5 s, though the
    backend had since said 90 (found in re-review). Only each backend's latest counts."""
    errors = [_waiting(kind, wait, backend) for backend, kind, wait in answers]
    chosen = most_meaningful(errors)
    assert isinstance(chosen, RateLimited | Overloaded)
    assert chosen.retry_after == told
