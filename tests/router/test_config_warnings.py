"""Configs that load but are warned of, by `config check` and at start (`Config.warnings`,
`router.config_warnings`); an unset key variable's warning is in test_backend_keys.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from router.cli import app
from router.config import load
from tests.router.test_config import GOOD, write

RESPONSES_ONLY = GOOD.replace("model: gpt-4o", "model: gpt-4o\n    apis: [responses]")
LEFTOVER = (
    "shadow:\n  targets: {coding: cloud}\n  judge_backend: cloud\n  allow_cloud_targets: true\n"
)
TEXTS_KEPT = "prompt texts (and records) are kept until `smf-router ledger compact --config` runs"


def _check(path: Path) -> list[str]:
    result = CliRunner().invoke(
        app, ["config", "check", "--config", str(path)], env={"CLOUD_KEY": "sk-x"}
    )
    assert result.exit_code == 0, result.output
    return [line for line in result.stderr.splitlines() if line.startswith("warning:")]


def test_a_shadow_backend_that_does_not_speak_chat_is_a_warning_while_shadowing_is_off(
    tmp_path: Path,
) -> None:
    """A `shadow.targets` entry or judge that does not speak chat was refused with shadowing
    off (no rate above 0), so a harmless leftover stopped `serve` and a reload after an
    upgrade (found in review). It loads, and `config check` names it."""
    said = _check(write(tmp_path, RESPONSES_ONLY + LEFTOVER))
    assert [w.split(":")[1].strip() for w in said] == [
        "shadow.targets.coding",
        "shadow.judge_backend",
    ]
    assert all("harmless while no shadow rate is above 0" in w for w in said)
    assert _check(write(tmp_path, GOOD + LEFTOVER)) == []  # speaking chat: nothing to say


def test_a_cloud_shadow_target_without_allow_cloud_targets_is_warned_of(tmp_path: Path) -> None:
    """`shadow.targets: {coding: cloud}` with `allow_cloud_targets` off loaded without a
    word, and the shadow dropped every coding sample as `not_allowed` (found in review).
    A local target, or the setting on, says nothing."""
    targets = "shadow:\n  rates: {coding: 0.5}\n  targets: {coding: cloud, math: local}\n"
    said = _check(write(tmp_path, GOOD + targets))
    assert len(said) == 1, said
    assert "shadow.targets.coding: backend 'cloud' is on the cloud tier" in said[0]
    assert "every sample for coding is dropped (not_allowed)" in said[0]
    allowed = GOOD + targets + "  allow_cloud_targets: true\n"
    assert _check(write(tmp_path, allowed)) == []
    logged = load(write(tmp_path, GOOD + targets), env={}).warnings()  # as `serve` logs them
    assert [w for w in logged if w.startswith("shadow.")] == [said[0].removeprefix("warning: ")]


@pytest.mark.parametrize(
    ("ledger", "warned"),
    [
        ("  store_text: true\n  housekeeping: false\n", True),
        ("  store_text: true\n", False),  # the hourly housekeeping applies text retention
        ("  housekeeping: false\n", False),  # no texts to keep
    ],
)
def test_texts_kept_without_housekeeping_are_warned_of(
    tmp_path: Path, ledger: str, warned: bool
) -> None:
    """`ledger.housekeeping: false` stops text retention too: with `store_text` on and no
    `smf-router ledger compact --config` job, prompts were kept for ever without a word
    (found in review). `config check` says so, and `serve` and a reload log
    `Config.warnings` as they start."""
    path = write(tmp_path, GOOD + f"ledger:\n  path: {tmp_path / 'ledger'}\n" + ledger)
    said = _check(path)
    assert any(TEXTS_KEPT in w for w in said) is warned, said
    logged = load(path, env={"CLOUD_KEY": "sk-x"}).warnings()
    assert any(TEXTS_KEPT in w for w in logged) is warned
