"""A real Prometheus on 127.0.0.1 for tests: temp storage, 1 s scrapes, an HTTP API client."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.ports import served

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"


def require_prometheus() -> None:
    """Skip when Prometheus is missing, unless SMF_REQUIRE_SYSTEM_TOOLS says it must be there."""
    if Path(PROMETHEUS).exists() and Path(PROMTOOL).exists():
        return
    if os.environ.get("SMF_REQUIRE_SYSTEM_TOOLS"):
        pytest.fail("prometheus/promtool missing: run scripts/ensure-system-packages")
    pytest.skip("prometheus not installed (scripts/ensure-system-packages installs it)")


class Prometheus:
    """Runs `prometheus` scraping the given jobs every second, ready once made."""

    def __init__(self, tmp: Path, jobs: dict[str, list[str]], rule_file: Path | None) -> None:
        config: dict[str, Any] = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [
                {"job_name": job, "scrape_timeout": "900ms", "static_configs": [{"targets": t}]}
                for job, t in jobs.items()
            ],
        }
        if rule_file is not None:
            config["rule_files"] = [str(rule_file)]
        self.config_path = tmp / "prometheus.yml"
        self.config_path.write_text(yaml.safe_dump(config))
        log = tmp / "prometheus.log"

        def launch(port: int) -> subprocess.Popen[bytes]:
            argv = [
                PROMETHEUS,
                f"--config.file={self.config_path}",
                f"--storage.tsdb.path={tmp / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
            ]
            with log.open("wb") as out:
                return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)

        # ready: /-/ready answers 200, not its 503 while starting
        url = "http://127.0.0.1:{port}/-/ready"
        self.port, self.proc = served(launch, url, lambda _: log, ready_only=True)
        self.url = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.url, timeout=10, trust_env=False)

    def query(self, expr: str) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON body) of an instant query."""
        resp = self.http.get("/api/v1/query", params={"query": expr})
        return resp.status_code, resp.json()

    def series(self, expr: str) -> list[dict[str, Any]]:
        status, body = self.query(expr)
        assert status == 200, f"{expr}: {body}"
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    def metric_names(self) -> set[str]:
        body = self.http.get("/api/v1/label/__name__/values").json()
        return set(body["data"])

    def wait_for(self, expr: str, minimum: float, timeout_s: float = 30) -> None:
        """Wait until `expr` returns a first value >= minimum."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            result = self.series(expr)
            if result and float(result[0]["value"][1]) >= minimum:
                return
            time.sleep(0.5)
        raise TimeoutError(f"waited {timeout_s}s for {expr} >= {minimum}")

    def stop(self) -> None:
        self.http.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60)


def promtool_test(tmp_path: Path, test: dict[str, Any]) -> str:
    """Run one `promtool test rules` file: '' when every check holds, else promtool's account
    of what differed."""
    require_prometheus()
    path = tmp_path / "promtool_test.yml"
    path.write_text(yaml.safe_dump(test, sort_keys=False))
    done = promtool("test", "rules", str(path))
    return "" if done.returncode == 0 else done.stdout + done.stderr
