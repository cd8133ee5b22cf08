"""Only a regular file of at most 10 MB is read as a config: at start, in `config check` and
on a reload, anything else is a config error naming the path."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from router import reload
from tests.harness import config_for, router, simulator
from tests.router.config_files import config_check


def sparse(path: Path, size: int) -> Path:
    """A file of `size` bytes that takes no room on disk."""
    with path.open("wb") as file:
        file.truncate(size)
    return path


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """`--config` on a FIFO waited for a writer forever; /dev/zero ended in a MemoryError
    traceback (found in review)."""
    fifo = tmp_path / "router.yaml"
    os.mkfifo(fifo)
    done = config_check(fifo)
    assert done.returncode == 2, done.stderr
    assert f"{fifo}: not a regular file" in done.stderr and "Traceback" not in done.stderr


def test_a_file_over_10_mb_is_refused(tmp_path: Path) -> None:
    path = sparse(tmp_path / "router.yaml", 11 * 2**20)
    done = config_check(path)
    assert done.returncode == 2, done.stderr
    assert f"{path}: larger than 10 MB" in done.stderr and "Traceback" not in done.stderr


def test_a_reload_from_a_file_over_10_mb_is_rejected(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy,
    ):
        path = sparse(tmp_path / "router.yaml", 11 * 2**20)
        reload.reloader_of(proxy.components).source = path
        rejected = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert rejected.status_code == 400, rejected.text
        assert f"{path}: larger than 10 MB" in rejected.json()["error"]["message"]
