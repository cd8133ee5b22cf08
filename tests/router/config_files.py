"""A good config file's text, a config file written from text, and `smf-router config check`
run on a file: what the config tests share."""

from __future__ import annotations

import subprocess
from pathlib import Path

from router.config import hash_key
from tests.harness import VENV_BIN

GOOD = """
backends:
  - name: local
    tier: local
    base_url: http://127.0.0.1:8888/v1
    model: ${LOCAL_MODEL:-laguna}
  - name: cloud
    tier: cloud
    base_url: https://api.example.com/v1
    model: gpt-4o
    api_key_env: CLOUD_KEY
auth:
  keys:
    - name: alice
      sha256: "HASH_OF_ALICE"
""".replace("HASH_OF_ALICE", hash_key("sk-alice"))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(text)
    return path


def config_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
