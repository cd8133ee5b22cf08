"""The price lookup finds a model under the part after any `/`, not only the first: the
README's Bedrock application-profile form `bedrock/converse/<the model's id>` was looked up
as `converse/...`, stored with an unknown cost and named unpriced by `config check` though
litellm prices it (found in review)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from router import price_map
from router.cli import app as main_app
from router.pricing import litellm_rates
from tests.router.config_files import write

MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"  # in the pinned litellm's map


@pytest.mark.parametrize(
    "model",
    [
        f"bedrock/converse/{MODEL_ID}",
        f"bedrock/invoke/{MODEL_ID}",
        f"bedrock/{MODEL_ID}",
        MODEL_ID,
    ],
)
def test_bedrock_route_words_fall_away(model: str) -> None:
    assert price_map.entry(model) is price_map.entry(MODEL_ID) is not None
    assert litellm_rates(model) == litellm_rates(MODEL_ID)


def test_the_whole_name_is_tried_first_and_an_unknown_one_is_none() -> None:
    listed = "bedrock/us-gov-west-1/anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert price_map.entry(listed) is price_map.load()[listed]
    assert price_map.entry("acme/converse/frontier-x-2027") is None


def test_config_check_does_not_call_a_bedrock_converse_model_unpriced(tmp_path: Path) -> None:
    config = f"""
backends:
  - {{name: local, tier: local, base_url: "http://127.0.0.1:9/v1", model: laguna}}
  - {{name: cloud, tier: cloud, kind: litellm, model: "bedrock/converse/{MODEL_ID}"}}
  - {{name: other, tier: cloud, kind: litellm, model: "bedrock/converse/acme.frontier-x"}}
"""
    result = CliRunner().invoke(
        main_app, ["config", "check", "--config", str(write(tmp_path, config))]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "no price for cloud model" in line]
    assert len(said) == 1, said
    assert said[0].startswith("warning: backends.other: the router found no price for")
