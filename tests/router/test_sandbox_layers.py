"""`serve` says at start which of the sandbox's layers hold where model-written code runs,
and warns when one is missing while secrets are in the environment, naming the variables,
never their values: the systemd unit took both kernel layers away, and nothing said so
(found in review). `smf-router serve` as a process, under the kernel's own filters."""

from __future__ import annotations

import json
import logging
import secrets
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from evals import sandbox
from router.config import parse
from router.sandbox_layers import CANARY, Layers, probe, remedy, report, say, secret_names
from tests import syscall_filter
from tests.harness import INTENTS
from tests.processes import router_process, without_capabilities

KEY = "sk-sentinel-" + secrets.token_hex(12)


def config(tmp: Path, request_tests: bool) -> dict[str, Any]:
    """Two local backends (none answers), the shadow replaying coding on the second, and
    running the tests requests carry with `request_tests`."""
    backends = [
        {"name": name, "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
        for name in ("local", "local2")
    ]
    backends[0]["api_key_env"] = "OPENAI_API_KEY"
    shadow = {"rates": {"coding": 0.5}, "targets": {"coding": "local2"}}
    return {
        "backends": backends,
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger")},
        "shadow": {**shadow, "run_request_tests": request_tests},
    }


def started(tmp: Path, request_tests: bool, wrapper: list[str]) -> tuple[list[dict[str, Any]], str]:
    """The lines `serve` run by `wrapper` logged by the time it answered, and its whole log."""
    settings = config(tmp, request_tests)
    with router_process(settings, tmp, env={"OPENAI_API_KEY": KEY}, wrapper=wrapper) as (proxy, _):
        log = tmp / f"router-{proxy.root.rsplit(':', 1)[1]}.log"
    text = log.read_text()
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")], text


@pytest.mark.skipif(not syscall_filter.available(), reason="needs Linux and libseccomp")
def test_a_host_without_the_kernel_layers_is_named_in_a_warning(tmp_path: Path) -> None:
    """As a service runs, without capabilities: root's would be a missing layer too."""
    prefix = without_capabilities()
    if prefix is None:
        pytest.skip("root without setpriv to drop its capabilities")
    guard_only = syscall_filter.wrapper(syscall_filter.GUARD_ONLY)
    lines, text = started(tmp_path, True, [*prefix, *guard_only])
    (said,) = [
        line for line in lines if line.get("event") == "sandbox_layers" and line["level"] == "info"
    ]
    assert said["msg"] == (
        "sandbox for shadow.run_request_tests: namespaces no, Landlock none, non-dumpable yes"
    )
    assert (said["namespaces"], said["landlock_abi"], said["undumpable"]) == (False, 0, True)
    (warning,) = [line for line in lines if line["level"] == "warning" and "SANDBOX" in line["msg"]]
    assert warning["missing"] == ["namespaces", "Landlock"]
    assert (
        "without namespaces, Landlock, while OPENAI_API_KEY is in the environment"
        in (warning["msg"])
    )
    assert "read this process's environment" not in warning["msg"]  # non-dumpable: it cannot
    assert KEY not in text and KEY[12:] not in text


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="non-dumpable: Linux only")
@pytest.mark.parametrize("request_tests", [True, False], ids=["tests run", "no code"])
def test_serve_names_the_layers_it_finds_where_code_runs(
    tmp_path: Path, request_tests: bool
) -> None:
    lines, text = started(tmp_path, request_tests, [])
    said = [line for line in lines if line.get("event") == "sandbox_layers"]
    if not request_tests:
        assert said == []  # no feature runs code: nothing to say
        return
    here = probe()  # this process's, but for the dumpable flag
    fields = ("namespaces", "landlock_abi", "root")
    assert [said[0][field] for field in fields] == [getattr(here, field) for field in fields]
    assert said[0]["undumpable"] is True
    missing = replace(here, undumpable=True).missing()
    assert [line["level"] for line in said] == ["info"] + ["warning"] * bool(missing)
    assert KEY not in text


def test_the_warning_names_secrets_never_their_values() -> None:
    environ = {"OPENAI_API_KEY": KEY, "HF_TOKEN": "hf_x", "MY_KEY_FILE_SECRET": "", "PATH": "/b"}
    assert secret_names(environ, ["CUSTOM"]) == ["HF_TOKEN", "OPENAI_API_KEY"]
    assert secret_names({**environ, "CUSTOM": "v"}, ["CUSTOM"])[0] == "CUSTOM"
    bare = Layers(namespaces=False, landlock_abi=0, undumpable=False)
    said = report(["canary code cases"], environ, layers=bare)
    assert said is not None and said[2] is not None
    assert (
        "without namespaces, Landlock, non-dumpable, while HF_TOKEN, OPENAI_API_KEY are"
        in (said[2])
    )
    assert "read this process's environment" in said[2] and KEY not in said[2]
    assert report([], environ, layers=bare) is None  # nothing runs code
    assert report(["canary code cases"], {"PATH": "/b"}, layers=bare)[2] is None  # type: ignore[index]
    whole = Layers(namespaces=True, landlock_abi=6, undumpable=True)
    assert report(["canary code cases"], environ, layers=whole)[1:] == (  # type: ignore[index]
        "sandbox for canary code cases: namespaces yes, Landlock ABI 6, non-dumpable yes",
        None,
    )


def test_say_writes_where_it_is_told(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """`canary run` has no log: it gives `say` its stderr (`write`), where it built its own
    key list and called `report` itself. The lines and fields are those the log gets."""
    written: list[tuple[int, str, dict[str, Any]]] = []
    caplog.set_level(logging.INFO, "smf_router.sandbox")
    settings = parse(config(tmp_path, True))
    warnings = say(settings, [CANARY], {"OPENAI_API_KEY": KEY}, lambda *line: written.append(line))
    layers = probe()
    assert written[0][:2] == (logging.INFO, f"sandbox for {CANARY}: {layers.summary()}")
    assert written[0][2]["event"] == "sandbox_layers" and written[0][2]["features"] == [CANARY]
    assert [text for level, text, _ in written if level == logging.WARNING] == warnings
    assert len(written) == 1 + bool(layers.missing())  # a warning for a missing layer
    assert [r for r in caplog.records if r.name == "smf_router.sandbox"] == []
    assert KEY not in json.dumps(written)
    assert say(settings, [], {"OPENAI_API_KEY": KEY}, lambda *line: written.append(line)) == []


def _reload(proxy: Any, path: Path, tmp: Path, request_tests: bool) -> dict[str, Any]:
    """The reply to a reload of `config(tmp, request_tests)` through the admin endpoint."""
    path.write_text(yaml.safe_dump(config(tmp, request_tests)))
    answer = httpx.post(f"{proxy.url}/router/reload", timeout=60)
    assert answer.status_code == 200, answer.text
    reply: dict[str, Any] = answer.json()
    assert reply["restart_needed"] == []
    return reply


@pytest.mark.skipif(not syscall_filter.available(), reason="needs Linux and libseccomp")
def test_a_reload_that_turns_request_tests_on_names_the_layers(tmp_path: Path) -> None:
    """Started with `run_request_tests` off, nothing ran code and nothing was said; a reload
    turned it on and clients' code ran with no word of the layers, in the log or in the
    reply's warnings (found in review). A reload now says what a start says, for what runs
    code under the new config: the layers line and the SANDBOX warning, the latter in the
    reply too; a reload that turns it off again says neither."""
    prefix = without_capabilities()
    if prefix is None:
        pytest.skip("root without setpriv to drop its capabilities")
    guard_only = syscall_filter.wrapper(syscall_filter.GUARD_ONLY)
    settings = config(tmp_path, False)
    env = {"OPENAI_API_KEY": KEY}
    with router_process(settings, tmp_path, env=env, wrapper=[*prefix, *guard_only]) as (proxy, _):
        (path,) = tmp_path.glob("router-*.yaml")
        on = _reload(proxy, path, tmp_path, True)
        off = _reload(proxy, path, tmp_path, False)
        log = tmp_path / f"router-{proxy.root.rsplit(':', 1)[1]}.log"
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    reloads = [i for i, line in enumerate(lines) if line["msg"].startswith("config reloaded")]
    assert len(reloads) == 2
    said = [i for i, line in enumerate(lines) if line.get("event") == "sandbox_layers"]
    assert said, "no reload named the sandbox's layers"
    assert reloads[0] < said[0] and said[-1] < reloads[1]  # after the first reload only
    info, warning = (lines[i] for i in said)
    assert (info["level"], warning["level"]) == ("info", "warning")
    assert info["msg"] == (
        "sandbox for shadow.run_request_tests: namespaces no, Landlock none, non-dumpable yes"
    )
    assert warning["missing"] == ["namespaces", "Landlock"]
    assert on["warnings"] == [warning["msg"]]
    assert warning["msg"].startswith(
        "SANDBOX: shadow.run_request_tests run model-written code without namespaces,"
        " Landlock, while OPENAI_API_KEY is in the environment."
    )
    assert off["warnings"] == []
    assert KEY not in text and KEY not in json.dumps([on, off])


def test_apparmor_is_named_when_it_refuses_the_user_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ubuntu 24.04 (the README's desk box) restricts unprivileged user namespaces through
    AppArmor: `unshare -r` fails, and the warning told to allow them in the unit, which
    already did (found in review). The decision: the sysctl reads 1 and `unshare` failed."""
    sysctl = tmp_path / "apparmor_restrict_unprivileged_userns"
    assert sandbox.userns_restricted(sysctl) is False  # no such setting: not AppArmor's doing
    sysctl.write_text("0\n")
    assert sandbox.userns_restricted(sysctl) is False
    sysctl.write_text("1\n")
    assert sandbox.userns_restricted(sysctl) is True
    monkeypatch.setattr(sandbox, "USERNS_SYSCTL", sysctl)
    for works, blamed in ((False, True), (True, False)):  # a profile may grant it: no cause
        monkeypatch.setattr(sandbox, "namespaces_available", lambda works=works: works)
        assert probe().userns_apparmor is blamed
    sysctl.write_text("0\n")
    assert probe().userns_apparmor is False  # refused by something else: the unit, say
    blocked = Layers(namespaces=False, landlock_abi=6, undumpable=True, userns_apparmor=True)
    advice = remedy(blocked, "/usr/bin/unshare")
    assert "kernel.apparmor_restrict_unprivileged_userns=1" in advice
    assert "grants `userns` to /usr/bin/unshare" in advice and "sysctl to 0" in advice
    assert "RestrictNamespaces" not in advice and "landlock_" not in advice
    assert "landlock_* calls" in remedy(replace(blocked, landlock_abi=0), "/usr/bin/unshare")
    assert remedy(replace(blocked, userns_apparmor=False), None).startswith(
        "Allow the layers (systemd: RestrictNamespaces=user net pid"
    )


def test_the_logged_warning_names_apparmor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What `serve` logs at start on such a host: the cause and both ways out, with the
    program the sandbox executes (the one an AppArmor profile must name)."""
    sysctl = tmp_path / "apparmor_restrict_unprivileged_userns"
    sysctl.write_text("1\n")
    monkeypatch.setattr(sandbox, "USERNS_SYSCTL", sysctl)
    monkeypatch.setattr(sandbox, "namespaces_available", lambda: False)
    caplog.set_level(logging.INFO, "smf_router.sandbox")
    (said,) = say(parse(config(tmp_path, True)), [CANARY], {"OPENAI_API_KEY": KEY})
    (record,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert record.getMessage() == said and "fields" in record.__dict__
    assert record.__dict__["fields"]["userns_apparmor"] is True
    assert said.startswith(f"SANDBOX: {CANARY} run model-written code without namespaces")
    assert "AppArmor refuses unprivileged user namespaces here" in said
    unshare = sandbox.unshare_program() or "/usr/bin/unshare"
    assert f"grants `userns` to {unshare}," in said and "Allow the layers" not in said
