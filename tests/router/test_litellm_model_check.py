"""A litellm backend's model must name a provider litellm knows (`antropic/…` does not):
`serve` refuses to start with one (checked where backends are built), while a provider named
in `extra_body` serves an unprefixed model. A reload's check, and a request that meets such
a model, are in `test_litellm_errors`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import openai
import yaml

from tests.harness import VENV_BIN, Running, simulator
from tests.ports import ran
from tests.processes import router_process

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")
HELLO: list[Any] = [{"role": "user", "content": "Say hello."}]
MISTYPED = "antropic/claude-sonnet-4-5"  # no provider litellm knows


def client(proxy: Running) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)


def test_a_model_no_provider_serves_stops_serve(tmp_path: Path) -> None:
    """`antropic/…` passed `config check`, `serve` and a reload; then every request for the
    backend was a 400 blaming the client (found in review)."""
    backend = {"name": "cloud", "tier": "cloud", "kind": "litellm", "model": MISTYPED}
    path = tmp_path / "router.yaml"
    routes = {i: ["cloud"] for i in INTENTS}
    data = {"backends": [backend], "routes": routes, "ledger": {"path": str(tmp_path)}}
    path.write_text(yaml.safe_dump(data))
    done = ran(
        lambda port: subprocess.run(
            [VENV_BIN / "smf-router", "serve", "--config", path, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,  # the old code served on: bounded below the test timeout
        )
    )
    assert done.returncode == 2, done.stderr
    assert "backends.0.model" in done.stderr and MISTYPED in done.stderr
    assert "Traceback" not in done.stderr
    assert "Pass in" not in done.stderr  # our words, not litellm's cut mid-sentence


def test_a_built_in_model_no_provider_serves_is_named_by_its_variable(tmp_path: Path) -> None:
    """`SMF_CLOUD_MODEL=antropic/...` stopped `serve` naming `backends.1.model`, a field of
    the built-in defaults the user never wrote, where a refused value in `parse` names the
    variable (found in review)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}
    done = ran(
        lambda port: subprocess.run(
            [VENV_BIN / "smf-router", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**env, "SMF_CLOUD_MODEL": MISTYPED},
            cwd=tmp_path,  # the default ./var/ledger, were it ever made
        )
    )
    assert done.returncode == 2, done.stderr
    said = f"error: SMF_CLOUD_MODEL (backends.1.model): litellm knows no provider for {MISTYPED!r}"
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_a_provider_named_in_extra_body_serves_an_unprefixed_model(tmp_path: Path) -> None:
    """`extra_body: {custom_llm_provider: openai}` with `model: my-gateway-model` is served
    by litellm, but the provider check asked without it and `serve` refused to start
    (found in review)."""
    with simulator(profile="cloud", model="my-gateway-model") as gateway:
        backend = {
            "name": "cloud",
            "tier": "cloud",
            "kind": "litellm",
            "base_url": gateway.url,
            "model": "my-gateway-model",
            "api_key_env": "HOME",  # any set variable: the simulator takes any key
            "extra_body": {"custom_llm_provider": "openai"},
        }
        routes = {i: ["cloud"] for i in INTENTS}
        data = {"backends": [backend], "routes": routes, "ledger": {"path": str(tmp_path)}}
        with router_process(data, tmp_path) as (proxy, _):
            reply = client(proxy).chat.completions.create(
                model="cloud", messages=HELLO, max_tokens=20
            )
        assert gateway.completions() == 1
    assert reply.choices[0].message.content
