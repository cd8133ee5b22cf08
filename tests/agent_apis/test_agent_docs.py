"""The Claude Code settings in README and docs/agents.md name every model Claude Code asks
for, and the router serves each value they give."""

from __future__ import annotations

import re
from pathlib import Path

import anthropic
import pytest
import yaml

from tests.agent_apis.agent_stack import anthropic_client, stack
from tests.harness import REPO, simulator

MODEL_VARIABLES = {
    "ANTHROPIC_MODEL",  # the main conversation
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",  # `haiku` and background calls
    "ANTHROPIC_DEFAULT_SONNET_MODEL",  # `sonnet` in /model
    "ANTHROPIC_DEFAULT_OPUS_MODEL",  # `opus` in /model
    "CLAUDE_CODE_SUBAGENT_MODEL",  # subagents
}


def _agents_doc_exports() -> dict[str, str]:
    text = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
    section = text.split("## Claude Code (Messages)", 1)[1].split("\n## ", 1)[0]
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
    text = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
    section = text.split("## Continue (chat)", 1)[1].split("\n## ", 1)[0]
    config = yaml.safe_load(section.split("```yaml", 1)[1].split("```", 1)[0])
    assert {"name", "version", "schema", "models"} <= set(config)
    assert config["schema"] == "v1"
    model = config["models"][0]
    assert (model["provider"], model["model"]) == ("openai", "auto")
    assert model["apiBase"] == "http://localhost:4000/v1"
