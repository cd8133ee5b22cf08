"""A backend whose `api_key_env` variable is unset or empty is named at `config check`, at
start and at a reload, and its 401 names the variable to check (never the key).

A reviewer's backend passed `config check` and started without a word; its first request
got a 401 whose log line said "check its api_key", a setting that does not exist.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml

from classifier.intent import INTENTS
from tests.harness import simulator
from tests.processes import router_process
from tests.resilience.conftest import until
from tests.router.env_config_check import config_check

UNSET = "SMF_TEST_KEY_NOBODY_SETS"
TEXT = f"""backends:
  - name: local
    tier: local
    base_url: http://127.0.0.1:9/v1
    model: m
  - name: cloud
    tier: cloud
    base_url: https://api.example.com/v1
    model: gpt-4o
    api_key_env: {UNSET}
"""


@pytest.mark.parametrize(
    ("value", "warning"),
    [
        (None, f"warning: backend 'cloud': {UNSET} (api_key_env) is not set"),
        ("", f"warning: backend 'cloud': {UNSET} (api_key_env) is empty"),
        ("  \n", f"warning: backend 'cloud': {UNSET} (api_key_env) is empty"),
        ("sk-SECRET-value", None),
    ],
    ids=["unset", "empty", "whitespace", "set"],
)
def test_config_check_warns_of_a_key_variable_that_is_unset_or_empty(
    tmp_path: Path, value: str | None, warning: str | None
) -> None:
    env = {k: v for k, v in os.environ.items() if k != UNSET}
    if value is not None:
        env[UNSET] = value
    done = config_check(tmp_path, TEXT, env)
    assert done.returncode == 0, done.stderr  # a warning: a gateway may need no key
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert [w.split(";")[0] for w in warnings] == ([warning] if warning else [])
    assert "SECRET" not in done.stdout + done.stderr


def test_serve_and_a_reload_warn_and_the_401_names_the_variable(tmp_path: Path) -> None:
    assert UNSET not in os.environ
    with simulator(profile="vllm", model="local-model", api_key="the-right-key") as local:
        backend = {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"}
        config: dict[str, Any] = {
            "backends": [{**backend, "api_key_env": UNSET}],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
        }
        with router_process(config, tmp_path) as (proxy, process):
            log = next(tmp_path.glob("router-*.log"))
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            with pytest.raises(openai.InternalServerError) as raised:
                client.chat.completions.create(
                    model="local", messages=[{"role": "user", "content": "hi"}]
                )
            process.send_signal(signal.SIGHUP)  # the same file again: still no key
            until(lambda: b"config reloaded" in log.read_bytes(), what="the reload")
    message = raised.value.response.json()["error"]["message"]
    assert "the variable its api_key_env names is not set" in message
    assert UNSET not in message
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    said = f"backend 'local': {UNSET} (api_key_env) is not set"
    warned = [line for line in lines if said in line["msg"]]
    assert [line["level"] for line in warned] == ["warning", "warning"]  # start, reload
    refused = [line["msg"] for line in lines if "refused the router (401" in line["msg"]]
    assert refused and all(f"${UNSET} (its api_key_env)" in msg for msg in refused)


PASTED = "gsk_tiPezVJMGB3i6XWh1TJAimZ9B5rBdYwwaD9qRWZkp"  # a Groq key's shape, a valid name


def test_a_key_pasted_into_api_key_env_is_repeated_nowhere(tmp_path: Path) -> None:
    """A Groq, HF or Mistral key is letters, digits and `_`: it passed the name check and the
    401 hint, the start warning and the log line repeated it to every client (found in
    review). Logs name only what looks like a variable; clients never hear the name."""
    assert PASTED not in os.environ
    with simulator(profile="cloud", model="llama-3.3-70b-versatile", api_key="right") as cloud:
        config: dict[str, Any] = {
            "backends": [
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": cloud.url,
                    "model": "llama-3.3-70b-versatile",
                    "api_key_env": PASTED,
                }
            ],
            "routes": {intent: ["cloud"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
        }
        with router_process(config, tmp_path) as (proxy, _):
            log = next(tmp_path.glob("router-*.log"))
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            with pytest.raises(openai.InternalServerError) as raised:
                client.chat.completions.create(
                    model="cloud", messages=[{"role": "user", "content": "hi"}]
                )
            until(lambda: b"refused the router (401" in log.read_bytes(), what="the log line")
    text = raised.value.response.text
    assert "the variable its api_key_env names is not set" in text
    assert PASTED[4:] not in text
    logged = log.read_text()
    assert "the variable named in api_key_env (not shown" in logged
    assert PASTED[4:] not in logged
    done = config_check(tmp_path, yaml.safe_dump(config), {})
    assert "the variable named in api_key_env (not shown" in done.stderr
    assert "(api_key_env) is" not in done.stderr  # said once, not "(not shown: …) (api_key_env)"
    assert PASTED[4:] not in done.stdout + done.stderr
