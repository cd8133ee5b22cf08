"""What a reload tells: its warnings in the reply, and the last attempt in the status, so a
deploy script and a `systemctl reload` (SIGHUP, which answers no one) learn of them without
reading the log."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload
from router.config import parse
from tests.harness import Running, RunningRouter, config_for, router, scrape, simulator
from tests.processes import router_process
from tests.resilience.conftest import status, until, write

SECRET = "sk-RELOAD-REPORT-SECRET-1"
APPLIED = "smf_router_config_last_reload_successful"
LOADED_AT = "smf_router_config_last_reload_success_timestamp_seconds"
RESTART = "smf_router_config_restart_needed"
RELOADS = "smf_router_config_reloads_total"


def last(root: str) -> Any:
    return status(root)["extra"]["reload"]["last"]


@contextmanager
def reloadable(tmp: Path) -> Iterator[tuple[RunningRouter, dict[str, Any], Path]]:
    """A router on a local and a cloud simulator that reloads from a file: the router, its
    config as data, and the file (holding that config until a test writes another)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp).model_dump(mode="json")
        # priced, or every reload warns that its cost is unknown (a warning these tests
        # do not look for: they read the others)
        data["backends"][1]["price"] = {"input_per_mtok": 1.0, "output_per_mtok": 2.0}
        config = parse(data)
        path = write(tmp / "router.yaml", data)
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            yield proxy, data, path


@contextmanager
def served_process(
    tmp: Path,
) -> Iterator[tuple[Running, subprocess.Popen[bytes], dict[str, Any], Path]]:
    """`smf-router serve` on a local and a cloud simulator, as a process, from a file: the
    router, its process (for SIGHUP), its config as data and the file it reads."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp).model_dump(mode="json")
        with router_process(data, tmp) as (proxy, process):
            (path,) = tmp.glob("router-*.yaml")
            yield proxy, process, data, path


def test_a_reload_replies_with_its_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unset `api_key_env` variable was logged by a reload, but the reply a deploy script
    reads said nothing of it (found in review)."""
    monkeypatch.delenv("RELOAD_REPORT_UNSET", raising=False)
    monkeypatch.setenv("RELOAD_REPORT_SET", SECRET)
    with reloadable(tmp_path) as (proxy, data, path):
        keyed = [
            {**data["backends"][0], "api_key_env": "RELOAD_REPORT_SET"},
            {**data["backends"][1], "api_key_env": "RELOAD_REPORT_UNSET"},
        ]
        write(path, {**data, "backends": keyed})
        answer = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert answer.status_code == 200, answer.text
        assert answer.json()["warnings"] == [
            "backend 'cloud': RELOAD_REPORT_UNSET (api_key_env) is not set; requests to "
            "it carry no key"
        ]
        assert SECRET not in answer.text

        write(path, data)  # the keys gone again: nothing to warn of
        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).json()["warnings"] == []


def test_status_keeps_the_last_http_reload(tmp_path: Path) -> None:
    """Its time and whether it applied; not a refusal's reason, which names the variables
    holding backends' keys, where any caller's key reads status (found in review)."""
    with reloadable(tmp_path) as (proxy, data, path):
        assert last(proxy.root) is None  # no reload yet

        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 200
        after = last(proxy.root)
        assert after["ok"] is True
        assert after["restart_needed"] == []
        at = datetime.fromisoformat(after["at"])
        assert at.utcoffset() == timedelta(0)
        assert abs(datetime.now(UTC) - at) < timedelta(minutes=1)

        write(path, {**data, "routes": {"coding": ["ghost"]}})
        rejected = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert rejected.status_code == 400
        refused = last(proxy.root)
        assert refused["ok"] is False and refused["restart_needed"] == []
        assert "message" not in refused and "ghost" in rejected.json()["error"]["message"]
        assert refused["at"] >= after["at"]
        assert scrape(proxy.root).get(APPLIED) == 0  # and so says /metrics


def test_a_refused_sighup_reload_shows_in_status_until_a_good_one(tmp_path: Path) -> None:
    """`systemctl reload` sends a SIGHUP and reports success whatever the router makes of
    it: a refused file showed only in the journal (found in review)."""
    with served_process(tmp_path) as (proxy, process, data, path):
        assert last(proxy.root) is None

        path.write_text("backends: [\n")  # not YAML
        process.send_signal(signal.SIGHUP)
        until(lambda: last(proxy.root) is not None, what="the refused reload in status")
        refused = last(proxy.root)
        assert refused["ok"] is False and refused["restart_needed"] == []
        assert set(refused) == {"at", "ok", "restart_needed"}
        assert status(proxy.root)["extra"]["reload"]["reloads"] == 0

        write(path, {**data, "ledger": {**data["ledger"], "flush_interval_s": 0.5}})
        process.send_signal(signal.SIGHUP)
        until(lambda: last(proxy.root)["ok"], what="the good reload in status")
        good = last(proxy.root)
        assert good["restart_needed"] == ["ledger"]
        assert good["at"] >= refused["at"]
        assert status(proxy.root)["extra"]["reload"]["reloads"] == 1


def test_metrics_say_a_reload_was_refused_until_one_applies(tmp_path: Path) -> None:
    """A refused file showed in the log and in status, never in /metrics, and no alert rule
    could see it: the running config and the file the next restart reads drifted apart
    unseen (found in review). Two gauges now say it, as Prometheus's say it of its own."""
    with served_process(tmp_path) as (proxy, process, data, path):
        start = scrape(proxy.root)
        started = start.get(LOADED_AT)
        assert start.get(APPLIED) == 1 and started is not None and started > 0

        path.write_text("backends: [\n")  # not YAML
        process.send_signal(signal.SIGHUP)
        until(lambda: scrape(proxy.root).get(APPLIED) == 0, what="0 after a refused file")
        assert scrape(proxy.root).get(LOADED_AT) == started  # it still runs that config

        write(path, data)
        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 200
        fixed = scrape(proxy.root)
        loaded = fixed.get(LOADED_AT)
        assert fixed.get(APPLIED) == 1 and loaded is not None and loaded > started


def test_metrics_count_each_reload_so_a_refused_file_fixed_since_still_shows(
    tmp_path: Path,
) -> None:
    """The gauges say how the last reload ended: a file refused, then fixed before the next
    scrape or the alert's 5 minutes, left no trace on /metrics or a dashboard. A counter of
    attempts by outcome keeps it, its series at 0 from start so that `increase()` counts the
    first one."""
    with served_process(tmp_path) as (proxy, process, data, path):
        start = scrape(proxy.root)
        assert start.get(RELOADS, outcome="applied") == 0
        assert start.get(RELOADS, outcome="rejected") == 0

        path.write_text("backends: [\n")  # not YAML
        process.send_signal(signal.SIGHUP)
        until(
            lambda: scrape(proxy.root).get(RELOADS, outcome="rejected") == 1,
            what="the refused reload counted",
        )
        write(path, data)
        process.send_signal(signal.SIGHUP)
        until(
            lambda: scrape(proxy.root).get(RELOADS, outcome="applied") == 1,
            what="the good reload counted",
        )
        fixed = scrape(proxy.root)
        assert fixed.get(APPLIED) == 1  # the gauge forgot the refusal
        assert fixed.get(RELOADS, outcome="rejected") == 1  # the counter keeps it


def test_a_router_without_a_config_file_keeps_its_reload_gauges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started from SMF_* variables (or in demo mode), a router has no file to re-read: a
    reload is a 400 and a log line, and set the gauge to 0 until a restart, though nothing
    drifted apart (found in re-review). The gauges stay; status and the counter keep the
    attempt."""
    monkeypatch.delenv("SMF_ROUTER_CONFIG", raising=False)
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy,
    ):
        assert reload.reloader_of(proxy.components).source is None
        started = scrape(proxy.root).get(LOADED_AT)
        refused = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert refused.status_code == 400 and "no config file to reload" in refused.text
        assert last(proxy.root)["ok"] is False
        after = scrape(proxy.root)
        assert after.get(APPLIED) == 1 and after.get(LOADED_AT) == started
        # the attempt still counts, refused: an edit meant to apply did not
        assert after.get(RELOADS, outcome="rejected") == 1
        assert after.get(RELOADS, outcome="applied") == 0


def test_metrics_say_a_reload_left_settings_waiting_for_a_restart(tmp_path: Path) -> None:
    """A reload that moved `ledger.path` applied (1, and a fresh timestamp), so /metrics
    said the running config was the file's, though the ledger still wrote where it started
    until a restart (found in re-review). A third gauge says so until the change is put back;
    a refused reload in between leaves it."""
    with reloadable(tmp_path) as (proxy, data, path):
        assert scrape(proxy.root).get(RESTART) == 0  # from start
        moved = {**data, "ledger": {**data["ledger"], "path": str(tmp_path / "elsewhere")}}
        write(path, moved)
        answer = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert answer.status_code == 200 and answer.json()["restart_needed"] == ["ledger"]
        pending = scrape(proxy.root)
        assert pending.get(RESTART) == 1 and pending.get(APPLIED) == 1

        write(path, {**moved, "routes": {"coding": ["ghost"]}})  # refused: what runs stays
        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 400
        refused = scrape(proxy.root)
        assert refused.get(APPLIED) == 0 and refused.get(RESTART) == 1

        write(path, data)  # put back: nothing waits for a restart any more
        answer = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert answer.status_code == 200 and answer.json()["restart_needed"] == []
        assert scrape(proxy.root).get(RESTART) == 0


def test_a_reload_that_applied_is_logged_at_info_and_its_warnings_at_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reload that applied was logged at "warning", a clean one too: a log alert on
    warnings fired on each `systemctl reload` (found by a new user). The line is info now;
    the config's warnings stay warnings, and so does a change waiting for a restart."""
    monkeypatch.delenv("RELOAD_REPORT_UNSET", raising=False)
    with served_process(tmp_path) as (proxy, _, data, path):
        data["backends"][1]["price"] = {"input_per_mtok": 1.0, "output_per_mtok": 2.0}
        unset = {**data["backends"][1], "api_key_env": "RELOAD_REPORT_UNSET"}
        slower = {**data["ledger"], "flush_interval_s": 0.5}
        for new in (data, {**data, "backends": [data["backends"][0], unset]}):
            write(path, new)
            assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 200
        write(path, {**data, "ledger": slower})
        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 200
    (log,) = tmp_path.glob("router-*.log")
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    said = [(line["level"], line["msg"]) for line in lines if line["logger"] == "smf_router.reload"]
    no_key = "requests to it carry no key"
    reloaded = "config reloaded: 2 backend(s); added [], removed [], changed ['cloud']"
    assert said == [
        ("info", reloaded),  # priced: nothing to warn of
        ("info", reloaded),
        ("warning", f"backend 'cloud': {unset['api_key_env']} (api_key_env) is not set; {no_key}"),
        ("warning", f"{reloaded}; needs a restart to apply: ledger"),
    ]


def test_a_refused_reload_quotes_no_secret_of_the_file_in_its_answer_or_log(
    tmp_path: Path,
) -> None:
    """A password starting with `!` or `*`, or a header pasted whole as a name and given
    twice, was quoted by the YAML error: in the reload's 400 answer and in the log line of
    a refused POST or SIGHUP reload (found in review)."""
    with served_process(tmp_path) as (proxy, process, data, path):
        text = yaml.safe_dump(data)
        (log,) = tmp_path.glob("router-*.log")
        refusals = (
            ("api-key: !Pa55wordSECRET\n", "an unknown tag"),
            ("api-key: *SECRETanchor2\n", "an undefined alias"),
            ('"Authorization: Bearer sk-SECRETdup": a\n' * 2, "a key is given twice"),
        )
        for count, (broken, said) in enumerate(refusals, start=1):
            path.write_text(text + broken)
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=60)
            assert answer.status_code == 400, answer.text
            message = answer.json()["error"]["message"]
            assert said in message and "line" in message and "SECRET" not in message
            process.send_signal(signal.SIGHUP)
            until(
                lambda count=count: log.read_text().count("config reload rejected") == 2 * count,
                what="the POST's and the SIGHUP's refusal in the log",
            )
        assert "SECRET" not in log.read_text()


def test_a_refused_reload_quotes_no_allowed_hosts_entry_in_its_answer_or_log(
    tmp_path: Path,
) -> None:
    """An `allowed_hosts` entry written as a URL with a password was quoted whole by the
    error, in the reload's 400 answer and the log line of a refused POST or SIGHUP reload
    (found in review): the entry is named by its index."""
    with served_process(tmp_path) as (proxy, process, data, path):
        (log,) = tmp_path.glob("router-*.log")
        server = {**data["server"], "allowed_hosts": ["router.lan", "http://u:SECRET-pw@x"]}
        write(path, {**data, "server": server})
        answer = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert answer.status_code == 400, answer.text
        message = answer.json()["error"]["message"]
        assert "server.allowed_hosts" in message and "entry 1 (counting from 0)" in message
        assert "SECRET" not in message
        process.send_signal(signal.SIGHUP)
        until(
            lambda: log.read_text().count("config reload rejected") == 2,
            what="the POST's and the SIGHUP's refusal in the log",
        )
        assert "SECRET" not in log.read_text()
