"""The Claude Code settings in README and docs/agents/claude-code.md name every model Claude
Code asks for, and the router serves each value they give; their Codex settings
(docs/agents/codex.md) choose the router's provider (`model_provider`), and the router serves
Codex as configured there."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anthropic
import openai
import pytest
import yaml

from router.config import hash_key, parse
from tests.agent_apis.agent_stack import anthropic_client, stack, stack_config
from tests.agent_docs import agent_section
from tests.harness import REPO, router, simulator

MODEL_VARIABLES = {
    "ANTHROPIC_MODEL",  # the main conversation
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",  # `haiku` and background calls
    "ANTHROPIC_DEFAULT_SONNET_MODEL",  # `sonnet` in /model
    "ANTHROPIC_DEFAULT_OPUS_MODEL",  # `opus` in /model
    "ANTHROPIC_DEFAULT_FABLE_MODEL",  # `fable` in /model (2.1.197 asked for claude-fable-5)
    "CLAUDE_CODE_SUBAGENT_MODEL",  # subagents
}


def _agents_doc_exports() -> dict[str, str]:
    section = agent_section("claude-code.md", "Claude Code (Messages)")
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    return dict(re.findall(r"^export (\w+)=(\S+)", block, re.MULTILINE))


def _readme_one_liner() -> dict[str, str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| Claude Code |"))
    command = re.search(r"`(ANTHROPIC_BASE_URL=[^`]*claude)`", row)
    assert command is not None, row
    return dict(re.findall(r"(\w+)=(\S+)", command.group(1)))


def test_both_docs_set_every_model_claude_code_asks_for() -> None:
    """Only ANTHROPIC_MODEL was set in README: Claude Code's background calls asked for a
    claude-haiku model and got a 404, and /model and subagents used claude-* names too
    (found in review)."""
    for exports in (_agents_doc_exports(), _readme_one_liner()):
        assert set(exports) >= MODEL_VARIABLES, exports
        assert exports["ANTHROPIC_BASE_URL"] == "http://localhost:4000"  # no /v1


def test_both_docs_size_claude_codes_output_room_alike() -> None:
    """Claude Code asks `max_tokens: 32000` on every request unless told otherwise: a local
    window of 40,960 skipped every turn of a ~20k-token prompt (found in a live review)."""
    sizes = {
        exports.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")
        for exports in (_agents_doc_exports(), _readme_one_liner())
    }
    assert len(sizes) == 1, sizes
    assert 0 < int(str(sizes.pop())) < 32_000


def test_the_router_serves_the_documented_models_and_not_claude_names(tmp_path: Path) -> None:
    models = {_agents_doc_exports()[name] for name in MODEL_VARIABLES}
    models |= {_readme_one_liner()[name] for name in MODEL_VARIABLES}
    with (
        simulator(profile="vllm", model="local-model") as local,
        stack({"local": local}, tmp_path, ["local"]) as proxy,
    ):
        client = anthropic_client(proxy)
        ask = [{"role": "user", "content": "Name this session in three words."}]
        for model in sorted(models):
            reply = client.messages.create(model=model, max_tokens=50, messages=ask)
            assert reply.content[0].type == "text"
        with pytest.raises(anthropic.NotFoundError):  # why every variable must be set
            client.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=ask)


def test_the_continue_config_has_the_keys_continue_requires() -> None:
    """The snippet had `models` only; Continue's config.yaml requires `name`, `version`
    and `schema` at the top (found in review)."""
    section = agent_section("continue.md", "Continue (chat)")
    config = yaml.safe_load(section.split("```yaml", 1)[1].split("```", 1)[0])
    assert {"name", "version", "schema", "models"} <= set(config)
    assert config["schema"] == "v1"
    model = config["models"][0]
    assert (model["provider"], model["model"]) == ("openai", "auto")
    assert model["apiBase"] == "http://localhost:4000/v1"


def _agents_doc_codex() -> dict[str, Any]:
    section = agent_section("codex.md", "Codex CLI (Responses)")
    return tomllib.loads(section.split("```toml", 1)[1].split("```", 1)[0])


def _readme_codex() -> dict[str, Any]:
    """The README row's settings, each given as `key = "value"`, the table as
    `[model_providers.<id>]`: as Codex would read them."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| Codex CLI |"))
    settings = dict(re.findall(r'`(\w+) = "([^"`]*)"`', row))
    tables = re.findall(r"`\[model_providers\.(\w+)\]`", row)
    assert len(tables) == 1, row
    keys = ("base_url", "wire_api", "env_key")
    provider = {key: settings.pop(key) for key in keys if key in settings}
    return {**settings, "model_providers": {tables[0]: provider}}


def _codex_provider(config: dict[str, Any]) -> dict[str, Any]:
    """The provider Codex uses under `config`: the one `model_provider` names. Without
    `model_provider` Codex 0.171.0 ignored the table and kept reconnecting to OpenAI, which
    the README's row left out (found in review)."""
    assert "model_provider" in config, config
    providers = config.get("model_providers") or {}
    assert config["model_provider"] in providers, config
    provider: dict[str, Any] = providers[config["model_provider"]]
    assert provider["wire_api"] == "responses"
    assert provider["base_url"] == "http://localhost:4000/v1"
    assert config["model"] == "auto"
    return provider


def test_both_docs_point_codex_at_the_router_provider() -> None:
    for config in (_agents_doc_codex(), _readme_codex()):
        provider = _codex_provider(config)
        assert provider["env_key"] == "SMF_ROUTER_KEY"  # for a router with keys
    row_only = {  # what the README said: a table that no `model_provider` chooses
        "model": "auto",
        "model_providers": {"smf": {"base_url": "http://localhost:4000/v1"}},
    }
    with pytest.raises(AssertionError):
        _codex_provider(row_only)


def test_the_router_serves_codex_as_the_docs_configure_it(tmp_path: Path) -> None:
    """The documented provider's path and model, on a router with a key: the key from the
    variable `env_key` names, as Codex sends it, is served, and none is refused."""
    config = _agents_doc_codex()
    path = urlsplit(_codex_provider(config)["base_url"]).path
    key = "sk-codex-docs-4e1f"
    ask = {"model": config["model"], "input": "Reverse a list in Python."}
    with simulator(profile="vllm", model="local-model") as local:
        data = stack_config({"local": local}, tmp_path, ["local"]).model_dump(mode="json")
        data["auth"] = {"keys": [{"name": "codex", "sha256": hash_key(key)}]}
        with router(parse(data)) as proxy:
            assert urlsplit(proxy.url).path == path
            client = openai.OpenAI(base_url=proxy.url, api_key=key, max_retries=0)
            assert client.responses.create(**ask).output_text
            keyless = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
            with pytest.raises(openai.AuthenticationError):  # why the docs name `env_key`
                keyless.responses.create(**ask)
