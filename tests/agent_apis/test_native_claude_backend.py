"""The native Claude backend docs/agents/backends.md shows (Anthropic's own API: `kind: openai`,
`apis: [messages]`, the key in an `x-api-key` header), read from the docs and served by an
`anthropic`-profile simulator that asks for the key on every path, `/v1/models` too.

With `api_key_env` the key went as `Authorization: Bearer`, which Anthropic's API has
refused for an API key ("Invalid bearer token"), and the docs spoke of a native Claude
backend without showing how to configure one (found in review); `config check` warns of
that one (tests/router/test_config_warnings.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anthropic
import httpx
import pytest

from router import config
from tests.agent_docs import agent_pages
from tests.harness import Running, RunningRouter, router, simulator
from tests.router.config_files import config_check
from tests.waiting import wait_until

KEY = "sk-ant-api03-the-right-key"
LOCAL_MODEL = "poolside/Laguna-S-2.1-NVFP4"
ASK = [{"role": "user", "content": "Write a haiku about snow."}]


def documented() -> str:
    """The docs' YAML block that configures a backend at Anthropic's own API."""
    text = "".join(page.read_text(encoding="utf-8") for page in agent_pages())
    blocks = re.findall(r"```yaml\n(backends:.*?)```", text, re.S)
    found = [block for block in blocks if "https://api.anthropic.com/v1" in block]
    assert len(found) == 1, "docs/agents/ shows no native Claude backend"
    assert 'headers: {x-api-key: "${ANTHROPIC_API_KEY}"}' in found[0], found[0]
    return found[0]


def on_simulators(block: str, local: Running, claude: Running, tmp_path: Path) -> Path:
    """`block` with its URLs on the simulators and a ledger of the test's own."""
    text = block.replace("https://api.anthropic.com/v1", claude.url)
    text = text.replace("http://spark:8888/v1", local.url)
    path = tmp_path / "router.yaml"
    path.write_text(text + f"ledger: {{path: {tmp_path / 'ledger'}}}\n", encoding="utf-8")
    return path


@contextmanager
def served(block: str, tmp_path: Path) -> Iterator[tuple[RunningRouter, Running, Path]]:
    with (
        simulator(profile="vllm", model=LOCAL_MODEL) as local,
        simulator(profile="anthropic", model="claude-sonnet-4-5", api_key=KEY) as claude,
    ):
        path = on_simulators(block, local, claude, tmp_path)
        with router(config.load(path, env={"ANTHROPIC_API_KEY": KEY})) as proxy:
            yield proxy, claude, path


def test_the_documented_native_claude_backend_serves_the_anthropic_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)  # as `config check` reads it
    with served(documented(), tmp_path) as (proxy, claude, path):
        client = anthropic.Anthropic(base_url=proxy.root, api_key="none", max_retries=0)
        whole = client.messages.with_raw_response.create(model="cloud", max_tokens=20, messages=ASK)
        assert whole.headers["x-smf-backend"] == "cloud"
        assert whole.parse().content[0].type == "text"
        with client.messages.stream(model="cloud", max_tokens=20, messages=ASK) as stream:
            streamed = stream.get_final_message()
            assert stream.response.headers["x-smf-backend"] == "cloud"
        assert streamed.stop_reason in ("end_turn", "max_tokens")
        counted = client.messages.with_raw_response.count_tokens(model="cloud", messages=ASK)
        assert (counted.headers["x-smf-backend"], counted.headers["x-smf-estimated"]) == (
            "cloud",
            "false",
        )  # counted by the backend, not estimated: its key was taken there too
        assert counted.parse().input_tokens > 0
        # the health probe (and the window read) asked /v1/models with the key, and the
        # backend is up
        assert wait_until(lambda: claude.stats()["by_path"].get("/v1/models", 0) >= 1)
        status = httpx.get(f"{proxy.root}/v1/router/status", timeout=5, trust_env=False)
        backends = status.json()["extra"]["resilience"]["backends"]
        assert backends["cloud"]["circuit"] == "closed"
        assert "401" not in claude.stats()["by_status"], claude.stats()
        checked = config_check(path)
    assert checked.returncode == 0, checked.stderr
    assert "warning:" not in checked.stderr, checked.stderr
