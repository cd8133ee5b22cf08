"""A `user:password@` in a backend's `base_url` is sent as basic auth on every request.

A proxy with basic auth in front of vLLM is written that way. httpx turned it into an
`Authorization: Basic` header for the health probes and `/models` reads, but the connection
pool that carries the requests dropped it: the backend looked healthy and answered every
request with a 401 (found in review). The simulator stands for the proxy (`basic_auth`).
"""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from router.config import ConfigError, parse
from tests.harness import Running, config_for, router, simulator

USER, PASSWORD = "alice", "p@ss:w/rd"
IN_URL = "alice:p%40ss%3Aw%2Frd"  # as a URL carries it: percent-encoded


def test_requests_carry_the_base_urls_user_and_password(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="local-model", basic_auth=f"{USER}:{PASSWORD}") as local:
        netloc = local.root.removeprefix("http://")
        guarded = Running(f"http://{IN_URL}@{netloc}/v1", f"http://{IN_URL}@{netloc}")
        with router(config_for({"local": guarded}, tmp_path)) as proxy:
            sdk = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
            reply = sdk.chat.completions.with_raw_response.create(
                model="local", messages=[{"role": "user", "content": "hi"}]
            )
            assert reply.headers["x-smf-backend"] == "local"
            with sdk.chat.completions.create(
                model="local", messages=[{"role": "user", "content": "hi"}], stream=True
            ) as stream:
                assert any(chunk.choices for chunk in stream)
        assert local.stats()["by_path"]["/v1/chat/completions"] == 2


def test_a_password_in_the_url_and_api_key_env_cannot_both_be_the_header() -> None:
    backend = {
        "name": "local",
        "tier": "local",
        "base_url": f"http://{IN_URL}@127.0.0.1:9/v1",
        "model": "m",
        "api_key_env": "SOME_KEY",
    }
    with pytest.raises(ConfigError, match="base_url: a user and password in it and api_key_env"):
        parse({"backends": [backend]}, source="test")
