"""Errors in what a `<<` merge key brought into a mapping name the line of that `<<`, and
a top-level block of anchors goes under a key starting `x-`, ignored (as in Compose files).
Through `load` (which `serve` and a reload read through) and `smf-router config check`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from router.config import ConfigError, load
from tests.router.config_files import config_check, write

CLOUD = "  - name: cloud\n    tier: cloud\n    base_url: http://127.0.0.1:9/v1\n    model: gpt-4o\n"


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text), env={})
    return str(info.value)


def test_a_merged_field_is_named_at_the_merge_not_its_mapping(tmp_path: Path) -> None:
    """README promised "the line ... of the `<<` that merged it", and the error named the
    list item's line, where nothing is written about a tier (found in review)."""
    text = (
        "x-defaults: &d\n"  # 1
        "  tier: lokal\n"
        "  timeouts: {connect_s: -1}\n"
        "backends:\n"
        "  - name: local\n"  # 5
        "    base_url: http://127.0.0.1:9/v1\n"
        "    model: m\n"
        "    <<: *d\n" + CLOUD  # 8
    )
    message = _error(tmp_path, text)
    assert "backends.0.tier (line 8): Input should be 'local' or 'cloud'" in message
    assert "backends.0.timeouts.connect_s (line 8): Input should be greater than 0" in message


def test_a_key_of_the_mapping_itself_is_named_where_written_merged_ones_at_their_merge(
    tmp_path: Path,
) -> None:
    """The mapping's own keys win over merged ones, and so do their lines; of a list of
    merges, the key comes from the first that has it, named by the `<<`'s line."""
    text = (
        "x-a: &a {model: m}\n"  # 1
        "x-b: &b {base_url: 'http://127.0.0.1:9/v1', tier: lokal}\n"
        "backends:\n"
        "  - name: local\n"  # 4
        "    <<: [*a, *b]\n"  # 5
        "    timeouts: {connect_s: 5}\n"
        "    model: ''\n" + CLOUD  # 7
    )
    message = _error(tmp_path, text)
    assert "backends.0.tier (line 5): Input should be 'local' or 'cloud'" in message
    assert "backends.0.model (line 7): is empty" in message


def test_a_merge_through_a_merge_is_named_at_the_outer_merge(tmp_path: Path) -> None:
    text = (
        "x-base: &base {tier: lokal}\n"  # 1
        "x-local: &local {<<: *base, model: m}\n"  # 2
        "backends:\n"
        "  - name: local\n"
        "    base_url: http://127.0.0.1:9/v1\n"
        "    <<: *local\n" + CLOUD  # 6
    )
    assert "backends.0.tier (line 6): Input should be" in _error(tmp_path, text)


def test_top_level_x_keys_hold_anchors_and_are_ignored(tmp_path: Path) -> None:
    """There was nowhere to put a shared anchor block: `defaults:` or `x-common:` at the
    top was refused as an unknown key (found in review)."""
    text = (
        "x-common: &common\n  tier: local\n  timeouts: {connect_s: 3}\n"
        "x-notes: anything at all, ${NOT_SET} too\n"
        "backends:\n"
        "  - <<: *common\n    name: local\n    base_url: http://127.0.0.1:9/v1\n    model: m\n"
        + CLOUD
    )
    path = write(tmp_path, text)
    config = load(path, env={})
    assert (config.backend("local").tier, config.backend("local").timeouts.connect_s) == (
        "local",
        3,
    )
    done = config_check(path)
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(done.stdout)
    assert not [key for key in shown if key.startswith("x-")]


def test_another_unknown_top_level_key_says_where_anchors_go(tmp_path: Path) -> None:
    text = "defaults: &d\n  tier: local\nbackends:\n  - <<: *d\n    name: local\n"
    text += "    base_url: http://127.0.0.1:9/v1\n    model: m\n" + CLOUD
    message = _error(tmp_path, text)
    assert "defaults (line 1): Extra inputs are not permitted; a block that only holds " in (
        message
    )
    assert "under a key starting x- (x-common:)" in message
