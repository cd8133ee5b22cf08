"""A 503 the router makes itself when every backend is away for a while says when to come
back: a private request whose only backend (local) has an open circuit got a 503 with no
`Retry-After`, so the client's SDK retried at once, twice, into the same refusal, and gave
up before the circuit's next trial. Real sockets on 127.0.0.1 (ports 18000-18999)."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import openai

from tests.canary.servers import router
from tests.harness import Running, RunningRouter, config_for
from tests.resilience.conftest import CODING, FAST, chat, status, until

PRIVATE = {"x-smf-private": "1"}


def _local(proxy: RunningRouter) -> dict[str, object]:
    backend: dict[str, object] = status(proxy.root)["extra"]["resilience"]["backends"]["local"]
    return backend


def _open_local(pair: dict[str, Running], proxy: RunningRouter, down_s: float) -> None:
    """Take local down for `down_s` and fail private requests on it until its circuit opens."""
    pair["local"].control("faults", {"down": True, "for_s": down_s})
    for _ in range(3):
        chat(proxy.url, headers=PRIVATE)  # a 502: the attempt that finds local down
    until(lambda: _local(proxy)["circuit"] == "open", what="circuit open")


def test_a_503_for_an_open_circuit_says_when_it_half_opens(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    resilience = {**FAST, "open_s": 30.0, "max_open_s": 30.0}
    with router(config_for(pair, tmp_path, resilience=resilience)) as proxy:
        _open_local(pair, proxy, down_s=60.0)
        before = _local(proxy)["next_trial_in_s"]
        refused = chat(proxy.url, headers=PRIVATE)
        messages = httpx.post(
            f"{proxy.root}/v1/messages",
            json={"model": "coding", "max_tokens": 16, "messages": CODING},
            headers=PRIVATE,
            timeout=30,
            trust_env=False,
        )
        after = _local(proxy)["next_trial_in_s"]
    assert isinstance(before, float) and isinstance(after, float)
    for response in (refused, messages):
        assert response.status_code == 503, response.text
        seconds = int(response.headers["retry-after"])
        assert math.ceil(after) <= seconds <= math.ceil(before), (before, seconds, after)
        assert response.headers["x-should-retry"] == "true"
        assert "retry-after-ms" not in response.headers  # a half-open circuit awaits its trial
    error = refused.json()["error"]
    assert error["code"] == "no_backend_available"
    assert "circuit of 'local' is open" in error["message"]
    assert f"retry in {refused.headers['retry-after']} s" in error["message"]


def test_the_openai_sdk_waits_out_an_open_circuit_and_is_served(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """The SDK's own retries (2, at 0.5 s and 1 s) end before a 3 s circuit half-opens; told
    when it does, the SDK waits that long and its retry is served."""
    resilience = {**FAST, "open_s": 3.0, "max_open_s": 3.0}
    with router(config_for(pair, tmp_path, resilience=resilience)) as proxy:
        _open_local(pair, proxy, down_s=1.0)
        client = openai.OpenAI(
            base_url=proxy.url, api_key="none", max_retries=2, default_headers=PRIVATE
        )
        served = client.chat.completions.with_raw_response.create(
            model="coding", messages=[{"role": "user", "content": CODING[0]["content"]}]
        )
        assert served.headers["x-smf-backend"] == "local"
        assert served.retries_taken >= 1
