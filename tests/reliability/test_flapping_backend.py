"""A primary that goes down for 60 s while requests arrive every ~0.5 s: the fallback
serves during the outage, the primary is back within a few requests of recovery, and the
dead backend is probed a bounded number of times."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest

from tests.harness import config_for, router, simulator
from tests.reliability.load import MESSAGES

OUTAGE_S = float(os.environ.get("SMF_OUTAGE_S", "60"))  # the 60 s outage
RESILIENCE = {"open_s": 0.5, "max_open_s": 2.0, "probe_interval_s": 1.0, "probe_timeout_s": 0.5}


@pytest.mark.timeout(OUTAGE_S + 120)
def test_flapping_primary(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=RESILIENCE)
        with router(config) as proxy:

            def send() -> tuple[str, int]:
                response = httpx.post(
                    f"{proxy.url}/chat/completions",
                    json={"model": "coding", "messages": MESSAGES},
                    timeout=30,
                )
                assert response.status_code == 200, response.text
                return response.headers["x-smf-backend"], int(response.headers["x-smf-attempts"])

            assert send()[0] == "local"
            probes_before = proxy.components.status_sections["resilience"]()["probes_sent"]
            local.control("faults", {"down": True, "for_s": OUTAGE_S})
            down_at = time.monotonic()
            during: list[tuple[str, int]] = []
            while time.monotonic() - down_at < OUTAGE_S - 0.5:
                during.append(send())
                time.sleep(0.5)
            probes = proxy.components.status_sections["resilience"]()["probes_sent"]
            after: list[str] = []
            for _ in range(40):  # bounded: 20 s at most
                after.append(send()[0])
                if after[-1] == "local":
                    break
                time.sleep(0.5)
    assert {backend for backend, _ in during} == {"cloud"}
    tried_local = sum(1 for _, attempts in during if attempts > 1)
    assert tried_local <= 4, during  # the breaker opened after a few failed attempts
    assert probes - probes_before <= OUTAGE_S / RESILIENCE["open_s"] + 3  # bounded probing
    assert after[-1] == "local" and len(after) <= 12, after  # back within a few requests
    report = tmp_path / "flap.txt"
    report.write_text(
        f"requests during outage={len(during)} tried_local={tried_local} "
        f"probes={probes - probes_before} requests_until_local={len(after)}\n"
    )
    print(report.read_text())
