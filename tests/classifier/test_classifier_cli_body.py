"""`smf-router classify --body FILE [--api API]`: a whole request body classified offline, as
a user runs the command; bad input is one `error:` line and exit 2, never a traceback. (Its
`--json` against the running router's explain: tests/router/test_explain_reasons.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SMF_ROUTER = Path(sys.executable).parent / "smf-router"
MESSAGES_BODY: dict[str, Any] = {
    "model": "auto",
    "max_tokens": 256,
    "system": [{"type": "text", "text": "You are a helpful assistant."}],
    "messages": [{"role": "user", "content": "Integrate x^2 from 0 to 3."}],
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(
        "backends:\n"
        "  - {name: local, tier: local, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        "  - {name: cloud, tier: cloud, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
        "classifier: {min_confidence: 0.35, default_route: coding}\n",
        encoding="utf-8",
    )
    return path


def _smf(config: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SMF_ROUTER), "classify", "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def _body_file(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "body.json"
    path.write_text(content, encoding="utf-8")
    return path


def test_classify_reads_a_messages_body_and_names_its_route(config: Path, tmp_path: Path) -> None:
    done = _smf(config, "--body", str(_body_file(tmp_path, json.dumps(MESSAGES_BODY))))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("math  confidence "), lines
    assert lines[-1] == "route: math -> cloud, local"
    # named no `api`: read as chat, as explain reads it, and warned so
    assert done.stderr.startswith('warning: the body names no "api"')
    assert '"api": "messages"' in done.stderr and "--api messages" in done.stderr
    named = _smf(config, "--api", "messages", "--body", str(tmp_path / "body.json"))
    assert named.returncode == 0, named.stderr
    assert named.stderr == ""
    assert named.stdout.splitlines()[-1] == "route: math -> cloud, local"


def test_classify_says_when_the_body_names_its_route_or_backend(
    config: Path, tmp_path: Path
) -> None:
    body = {**MESSAGES_BODY, "model": "local"}
    done = _smf(config, "--api", "messages", "--body", str(_body_file(tmp_path, json.dumps(body))))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "route: local (the backend the request names) -> local"


@pytest.mark.parametrize(
    ("content", "args", "error"),
    [
        ('{"model": "auto", bad', (), "the request body is not valid JSON: "),
        ("[1, 2]", (), "the request body must be a JSON object"),
        ("", (), "the request body is empty"),
        ('{"api": "embeddings", "model": "auto"}', (), "'api' must be one of chat, completions"),
        (json.dumps(MESSAGES_BODY), ("--api", "responses"), "Missing required parameter: 'input'"),
        (json.dumps({**MESSAGES_BODY, "max_tokens": 0}), ("--api", "messages"), "'max_tokens'"),
        (
            json.dumps({**MESSAGES_BODY, "api": "chat"}),
            ("--api", "messages"),
            "its 'api' is 'chat', --api says 'messages'",
        ),
    ],
)
def test_a_body_that_is_not_a_request_is_one_error_line_naming_the_field(
    config: Path, tmp_path: Path, content: str, args: tuple[str, ...], error: str
) -> None:
    path = _body_file(tmp_path, content)
    done = _smf(config, *args, "--body", str(path))
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith(f"error: --body {path}: "), done.stderr
    assert error in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stdout == ""


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("--body", "none.json"), "error: --body none.json: cannot read it: No such file"),
        (("--body", "."), "error: --body .: cannot read it: Is a directory"),
        (("--api", "messages", "hello"), "error: --api names the API of a --body FILE"),
        (("--body", "none.json", "hello"), "error: give TEXT or --body FILE, not both"),
    ],
)
def test_a_body_option_misused_is_one_error_line(
    config: Path, tmp_path: Path, args: tuple[str, ...], error: str
) -> None:
    done = _smf(config, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith(error) and len(done.stderr.splitlines()) == 1, done.stderr


def test_an_unknown_api_is_a_usage_error_naming_it(config: Path, tmp_path: Path) -> None:
    path = _body_file(tmp_path, json.dumps(MESSAGES_BODY))
    done = _smf(config, "--api", "embeddings", "--body", str(path))
    assert done.returncode == 2
    assert "Invalid value for '--api'" in done.stderr and "Traceback" not in done.stderr


def test_a_text_naming_a_file_is_classified_as_text_and_said_so(
    config: Path, tmp_path: Path
) -> None:
    """`classify body.json` classified the 9 characters of the name, with nothing to say a
    file was not read (found in review)."""
    _body_file(tmp_path, json.dumps(MESSAGES_BODY))
    done = _smf(config, "body.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "note: classifying the text 'body.json'; use --body FILE or `< FILE` to read a file\n"
    )
    assert _smf(config, "not a file name").stderr == ""
