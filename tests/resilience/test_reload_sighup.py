"""SIGHUP reloads a real `smf-router serve` process: an edit applies, a broken file is
rejected and the router serves on, and a SIGHUP that arrives while `serve` is still
starting is applied once it can reload. The reloads themselves: test_reload_config.py."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import yaml

from tests.harness import VENV_BIN, config_for, simulator
from tests.ports import served
from tests.resilience.conftest import model_ids, until, write


def test_sighup_reloads_a_real_process(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        path = write(tmp_path / "router.yaml", data)
        log = tmp_path / "router.log"

        def launch(port: int) -> subprocess.Popen[bytes]:
            with log.open("wb") as out:
                return subprocess.Popen(
                    [str(VENV_BIN / "smf-router"), "serve", "--port", str(port)],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "SMF_ROUTER_CONFIG": str(path)},
                )

        port, process = served(launch, "http://127.0.0.1:{port}/healthz", lambda _: log)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            write(path, {**data, "aliases": {"auto": "auto", "fast": "local"}})
            process.send_signal(signal.SIGHUP)
            until(lambda: "fast" in model_ids(url), what="alias after SIGHUP")
            write(path, {**data, "routes": {"coding": ["ghost"]}})
            process.send_signal(signal.SIGHUP)
            until(lambda: b"config reload rejected" in log.read_bytes(), what="rejection")
            assert process.poll() is None and "fast" in model_ids(url)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def test_a_sighup_while_serve_starts_is_applied_once_it_can_reload(tmp_path: Path) -> None:
    """SIGHUP reached `serve` while it was still importing: the default action ended the
    router, and systemd took that for a clean exit (found in review). Here the signal comes
    from inside the process, after the command line ran and before the reload handler
    exists, with the file just edited: the router must survive and apply the edit."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        path = tmp_path / "router.yaml"
        edited = yaml.safe_dump({**data, "aliases": {"auto": "auto", "fast": "local"}})
        log = tmp_path / "router.log"

        def launch(port: int) -> subprocess.Popen[bytes]:
            write(path, data)  # unedited: a start on a port taken ran the edit already
            args = ["smf-router", "serve", "--config", str(path), "--port", str(port)]
            code = (
                "import os, signal, sys\n"
                "from pathlib import Path\n"
                "import router.serve\n"
                "real_run = router.serve.run\n"
                "def run(*args, **kwargs):\n"
                f"    Path({str(path)!r}).write_text({edited!r})\n"
                "    os.kill(os.getpid(), signal.SIGHUP)\n"
                "    real_run(*args, **kwargs)\n"
                "router.serve.run = run\n"
                f"sys.argv = {args!r}\n"
                "from router.cli import main\n"
                "main()\n"
            )
            with log.open("wb") as out:
                argv = [str(VENV_BIN / "python"), "-c", code]
                return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)

        port, process = served(launch, "http://127.0.0.1:{port}/healthz", lambda _: log)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            until(lambda: "fast" in model_ids(url), what="the edit applied")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        assert process.returncode == 0
        assert b"SIGHUP arrived while starting" in log.read_bytes()
