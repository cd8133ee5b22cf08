"""`${VAR}` interpolation keeps the shell's meaning, and an empty value is no model or path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from router.config import ConfigError, load
from router.config_env import interpolate
from router.default_config import from_environment
from tests.harness import REPO, VENV_BIN


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("${V:-dflt}", {"V": "set"}, "set"),
        ("${V:-dflt}", {"V": ""}, "dflt"),  # set but empty: the default, as in a shell
        ("${V:-dflt}", {}, "dflt"),
        ("${V-dflt}", {"V": ""}, ""),  # `-` alone: the default only when unset
        ("${V-dflt}", {}, "dflt"),
        ("${V-dflt}", {"V": "set"}, "set"),
        ("${V}", {"V": ""}, ""),
        ("a-${V:-}-b", {"V": ""}, "a--b"),
    ],
)
def test_defaults_follow_the_shell(text: str, env: dict[str, str], expected: str) -> None:
    """`${VAR:-default}` kept an empty value, where shells and Compose take the default
    (found in review)."""
    assert interpolate(text, env) == expected


def test_the_example_config_with_empty_variables_checks_with_its_defaults() -> None:
    """`SMF_CLOUD_MODEL= SMF_LEDGER_DIR=` (a Compose `.env` with the values left out)
    loaded model '' and a ledger in the working directory, and `config check` showed them
    as `***` and exited 0 (found in review)."""
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check"],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "SMF_ROUTER_CONFIG": str(REPO / "deploy" / "router.example.yaml"),
            "SMF_CLOUD_MODEL": "",
            "SMF_LEDGER_DIR": "",
        },
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(done.stdout)
    cloud = next(b for b in shown["backends"] if b["name"] == "cloud")
    assert cloud["model"] == "gpt-4o"
    assert shown["ledger"]["path"] == "/var/lib/smf-router/ledger"


def test_an_empty_model_or_ledger_path_is_an_error_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "router.yaml"
    path.write_text(
        "backends:\n"
        "  - name: local\n    tier: local\n    base_url: http://127.0.0.1:8888/v1\n"
        "    model: ${MODEL}\n"
        "ledger:\n  path: ${LEDGER-}\n"
    )
    with pytest.raises(ConfigError) as error:
        load(path, env={"MODEL": "", "LEDGER": ""})
    assert "backends.0.model (line 5)" in str(error.value)
    assert "ledger.path (line 7)" in str(error.value)


def test_built_in_variables_set_but_empty_count_as_unset() -> None:
    config = from_environment({"SMF_LOCAL_URL": "http://box:8000/v1", "SMF_CLOUD_MODEL": ""})
    assert config.backend("cloud").model == "gpt-4o-mini"
    assert config.backend("local").base_url == "http://box:8000/v1"
