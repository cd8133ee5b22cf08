"""`smf-router config check` on a config written from text, run with `env` added to the
environment: for the tests of what it shows of secrets that came through variables."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.harness import VENV_BIN


def config_check(
    tmp_path: Path, text: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "router.yaml"
    path.write_text(text)
    return subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )
