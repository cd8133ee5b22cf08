"""A backend that refuses the router itself (a wrong key, a model it does not serve).

The refusal answers the router's settings for that backend, not the client: another
backend serves the request, and with none left the client gets a 502 naming the backend
and the setting to check — never a 401 that sends it hunting for a fault in its own key.
Real refusals: the simulator checks the key and the model name like vLLM and OpenAI do.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.config import Config, parse
from tests.harness import Collect, Running, RunningRouter, claude_backend, router, simulator

KEY_ENV = "SMF_TEST_BACKEND_KEY"
SENT_KEY = "sk-router-wrong-0123456789"
INTENTS = ("coding", "tool_calling", "math", "reasoning", "instruction", "prose", "writing")
MESSAGES: list[Any] = [
    {"role": "user", "content": "Write a Python function that adds two numbers."}
]


def backend(name: str, tier: str, server: Running, model: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "tier": tier, "base_url": server.url, "model": model, **extra}


def config(backends: list[dict[str, Any]], tmp: Path, **extra: Any) -> Config:
    """Every intent routed through the backends in order, unless `routes` says otherwise."""
    routes = {intent: [b["name"] for b in backends] for intent in INTENTS}
    data = {"backends": backends, "routes": routes, "ledger": {"path": str(tmp / "ledger")}}
    return parse({**data, **extra})


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    os.environ[KEY_ENV] = SENT_KEY
    with (
        simulator(profile="vllm", model="local-model", api_key="the-right-key") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        backends = [
            backend("local", "local", local, "local-model", api_key_env=KEY_ENV),
            backend("retired", "cloud", cloud, "gone-model"),
            backend("cloud", "cloud", cloud, "cloud-model"),
        ]
        routes = {
            **{intent: ["cloud"] for intent in INTENTS},
            "coding": ["local", "cloud"],
            "writing": ["retired", "cloud"],
        }
        # The breaker has its own test; here every request must reach the backends.
        resilience = {"failure_threshold": 1000}
        settings = config(
            backends, tmp_path_factory.mktemp("refused"), routes=routes, resilience=resilience
        )
        with router(settings) as running:
            yield running
    os.environ.pop(KEY_ENV, None)


@pytest.mark.parametrize(
    ("route", "refused", "status"), [("coding", "local", 401), ("writing", "retired", 404)]
)
def test_a_refusing_backend_falls_back(
    proxy: RunningRouter, route: str, refused: str, status: int
) -> None:
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    try:
        raw = client.chat.completions.with_raw_response.create(model=route, messages=MESSAGES)
        record = records.wait(30)
    finally:
        proxy.components.gateway.sinks.remove(records)
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.parse().choices[0].message.content
    seen = [(a.backend, a.error_kind, a.status) for a in record.attempts]
    assert seen == [(refused, "backend_refused", status), ("cloud", None, 200)]


@pytest.mark.parametrize("stream", [False, True])
def test_with_no_fallback_the_client_gets_a_502_naming_the_backend(
    proxy: RunningRouter, stream: bool
) -> None:
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with pytest.raises(openai.InternalServerError) as raised:
        client.chat.completions.create(model="local", messages=MESSAGES, stream=stream)
    error = raised.value
    assert error.status_code == 502
    assert error.response.headers["x-should-retry"] == "false"
    body = error.response.json()["error"]
    assert body["code"] == "upstream_refused"
    assert "'local'" in body["message"]
    assert "check the key in the variable its api_key_env names" in body["message"]
    assert KEY_ENV not in body["message"]  # the operator's business, and maybe a key
    assert SENT_KEY[:8] not in error.response.text  # OpenAI's 401 quotes part of the key


def test_litellm_backend_refusal_falls_back(tmp_path: Path) -> None:
    """litellm raises its AuthenticationError for Anthropic's real 401 body."""
    with (
        simulator(profile="anthropic", model="claude-sonnet-4-5", api_key="right") as claude,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        claude_then_cloud = [
            claude_backend(claude),
            backend("cloud", "cloud", cloud, "cloud-model"),
        ]
        settings = config(claude_then_cloud, tmp_path)
        with router(settings) as proxy:
            records = Collect()
            proxy.components.gateway.sinks.append(records)
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            raw = client.chat.completions.with_raw_response.create(
                model="prose",
                messages=[{"role": "user", "content": "A haiku about snow."}],
                max_tokens=30,
            )
            record = records.wait(30)
    assert raw.headers["x-smf-backend"] == "cloud"
    first = record.attempts[0]
    assert (first.backend, first.error_kind, first.status) == ("claude", "backend_refused", 401)


def test_a_probe_does_not_reopen_the_door_to_a_refusing_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM's /health answers without the key: probes closed the circuit every open period
    and live requests hit the bad key again (found in review)."""
    monkeypatch.setenv(KEY_ENV, SENT_KEY)
    fast = {"open_s": 0.2, "max_open_s": 0.4, "probe_interval_s": 0.1, "probe_timeout_s": 0.5}
    with (
        simulator(profile="vllm", model="local-model", api_key="the-right-key") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        refusing = backend("local", "local", local, "local-model", api_key_env=KEY_ENV)
        settings = config(
            [refusing, backend("cloud", "cloud", cloud, "cloud-model")], tmp_path, resilience=fast
        )
        with router(settings) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            served, circuits = [], []
            for _ in range(20):  # several open periods
                raw = client.chat.completions.with_raw_response.create(
                    model="coding", messages=MESSAGES
                )
                served.append(raw.headers["x-smf-backend"])
                state = httpx.get(f"{proxy.root}/v1/router/status", trust_env=False).json()
                circuits.append(state["extra"]["resilience"]["backends"]["local"]["circuit"])
                time.sleep(0.1)
    assert set(served) == {"cloud"}
    opened = circuits.index("open")
    assert "closed" not in circuits[opened:], circuits


def test_a_refusal_does_not_hide_a_later_rate_limit() -> None:
    """Whether the client was told to wait and retry depended on plan order (found in
    review): a rate limit anywhere in the plan is the answer, with the soonest wait."""
    from router.attempt_errors import RateLimited, ServerError
    from router.backend_refused import BackendRefused
    from router.plan_error import most_meaningful

    chosen = most_meaningful(
        [
            BackendRefused("local", 401),
            RateLimited("slow down", backend="cloud", retry_after=3.0),
            ServerError("boom", backend="cloud2"),
            RateLimited("later", backend="cloud3", retry_after=1.5),
        ]
    )
    assert isinstance(chosen, RateLimited) and chosen.retry_after == 1.5


def test_a_key_read_with_a_trailing_newline_is_sent_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key file ending in a newline: `serve` stopped with a traceback about a line break
    in the authorization header (found in review); the key is the text around it."""
    monkeypatch.setenv(KEY_ENV, "the-right-key\n")
    with simulator(profile="vllm", model="local-model", api_key="the-right-key") as local:
        keyed = backend("local", "local", local, "local-model", api_key_env=KEY_ENV)
        with router(config([keyed], tmp_path)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            raw = client.chat.completions.with_raw_response.create(model="local", messages=MESSAGES)
    assert raw.headers["x-smf-backend"] == "local" and raw.parse().choices[0].message.content


@pytest.mark.parametrize(
    ("model", "variables"),
    [
        ("gemini/gemini-2.5-pro", ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
        ("openai/gpt-4o-mini", ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY")),
    ],
)
def test_a_litellm_provider_key_that_is_unset_is_the_backends_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, variables: tuple[str, ...]
) -> None:
    """A litellm backend without `api_key_env` reads its provider's variable, unset here.
    For Gemini litellm raises a ValueError wrapped in its APIConnectionError, which was a
    400 telling the client its request had "a field ... it does not accept", never tried
    elsewhere; for OpenAI the SDK's "Missing credentials" comes wrapped in a 500, which was
    the server's failure: retried, and counted against its circuit (found in review). The
    OpenAI backend points at the simulator, which it never reaches."""
    for variable in variables:
        monkeypatch.delenv(variable, raising=False)
    with simulator(profile="cloud", model="cloud-model") as cloud:
        keyless = {"name": "keyless", "tier": "cloud", "kind": "litellm", "model": model}
        if model.startswith("openai/"):
            keyless["base_url"] = cloud.url
        keyless_then_cloud = [keyless, backend("cloud", "cloud", cloud, "cloud-model")]
        settings = config(keyless_then_cloud, tmp_path, resilience={"failure_threshold": 1000})
        with router(settings) as proxy:
            records = Collect()
            proxy.components.gateway.sinks.append(records)
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            raw = client.chat.completions.with_raw_response.create(
                model="prose", messages=MESSAGES, max_tokens=30
            )
            first = records.wait(30).attempts[0]
            with pytest.raises(openai.APIStatusError) as info:
                client.chat.completions.create(model="keyless", messages=MESSAGES, max_tokens=30)
        assert cloud.completions() == 1  # the fallback's: the keyless backend sent nothing
    assert raw.headers["x-smf-backend"] == "cloud"
    assert (first.backend, first.error_kind) == ("keyless", "backend_refused")
    assert info.value.status_code == 502
    body = info.value.response.json()["error"]
    assert body["code"] == "upstream_refused"
    assert "'keyless'" in body["message"] and variables[0] in body["message"]
