"""`POST /v1/router/explain` says why the route is not the intent's label (`route_reason`,
`min_confidence`) and warns of a body that names no `api` but looks like another API's; and
`smf-router classify --json` prints the same document, offline, from the same config."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.config import load
from tests.harness import RunningRouter, router

MIN_CONFIDENCE = 0.5
CONFIG = (
    "backends:\n"
    "  - {name: local, tier: local, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
    "  - {name: cloud, tier: cloud, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
    f"classifier: {{min_confidence: {MIN_CONFIDENCE}, default_route: coding}}\n"
    "resilience: {enabled: false}\n"  # no probe marks the unreachable backends down
    "ledger: {path: LEDGER}\n"
)
# A Claude Code turn, shaped as Claude Code sends it (system blocks, tool_use, tool_result)
CLAUDE_CODE: dict[str, Any] = {
    "model": "auto",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": "You are Claude Code, Anthropic's official CLI."}],
    "tools": [
        {"name": n, "description": "d", "input_schema": {"type": "object", "properties": {}}}
        for n in ("Bash", "Read", "Edit")
    ],
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "the tests in tests/test_api.py fail, fix them"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me run them."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "pytest"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 failed, 3 passed"}
            ],
        },
    ],
}


@pytest.fixture(scope="module")
def config_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("explain")
    path = folder / "router.yaml"
    path.write_text(CONFIG.replace("LEDGER", str(folder / "ledger")), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def proxy(config_path: Path) -> Iterator[RunningRouter]:
    with router(load(config_path)) as running:
        yield running


def explained(proxy: RunningRouter, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json=body, headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def chat(text: str, model: str = "auto") -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": text}]}


def test_explain_says_the_route_is_the_label(proxy: RunningRouter) -> None:
    plan = explained(proxy, chat("Integrate x^2 from 0 to 3."))
    assert plan["intent"]["confidence"] >= MIN_CONFIDENCE, plan["intent"]
    assert (plan["route"], plan["route_reason"]) == (plan["intent"]["label"], "label")
    assert plan["min_confidence"] == MIN_CONFIDENCE


def test_explain_says_a_label_below_min_confidence_took_the_default_route(
    proxy: RunningRouter,
) -> None:
    """ "lgtm, ship it" was explained as intent tool_calling 0.257, route coding, and nothing
    said why the two differ (found in review)."""
    plan = explained(proxy, chat("lgtm, ship it"))
    assert plan["intent"]["confidence"] < MIN_CONFIDENCE, plan["intent"]
    assert plan["route"] == "coding"
    assert (plan["route_reason"], plan["min_confidence"]) == ("below_min_confidence", 0.5)
    assert plan["warning"] is None  # a chat body


def test_explain_says_below_min_confidence_when_the_default_route_is_the_label(
    proxy: RunningRouter,
) -> None:
    """A coding label below the threshold takes the coding route as the default, not as its
    label: tuning `min_confidence` moves it."""
    plan = explained(proxy, chat("fix it"))
    assert plan["intent"]["label"] == "coding" and plan["intent"]["confidence"] < 0.5
    assert (plan["route"], plan["route_reason"]) == ("coding", "below_min_confidence")


@pytest.mark.parametrize(
    ("model", "headers", "reason", "route"),
    [
        ("auto", {}, "nothing_read", "coding"),
        ("math", {}, "forced_route", "math"),
        ("local", {}, "forced_backend", "local"),
        ("auto", {"x-smf-route": "cloud"}, "forced_backend", "cloud"),
        ("auto", {"x-smf-route": "writing"}, "forced_route", "writing"),
    ],
)
def test_explain_names_each_reason_for_a_route(
    proxy: RunningRouter, model: str, headers: dict[str, str], reason: str, route: str
) -> None:
    plan = explained(proxy, chat("asdf" if reason == "nothing_read" else "Hello", model), **headers)
    assert (plan["route"], plan["route_reason"]) == (route, reason)


def test_explain_warns_of_a_messages_body_sent_without_api(proxy: RunningRouter) -> None:
    """A Claude Code body sent without `"api": "messages"` was read as chat in silence
    (0.7715 where serving said 0.7409; found in review). Still a 200, as it was, with a
    warning naming `api`; none once it is named."""
    unnamed = explained(proxy, CLAUDE_CODE)
    assert unnamed["warning"] is not None
    assert '"api": "messages"' in unnamed["warning"] and '"system"' in unnamed["warning"]
    named = explained(proxy, {"api": "messages", **CLAUDE_CODE})
    assert named["warning"] is None
    blocks_only = {k: v for k, v in CLAUDE_CODE.items() if k != "system"}
    assert '"tool_use" or "tool_result"' in explained(proxy, blocks_only)["warning"]


@pytest.mark.parametrize(
    ("body", "api"),
    [
        ({"model": "auto", "input": "Integrate x^2 from 0 to 3."}, "responses"),
        ({"model": "auto", "prompt": "def fibonacci(n):"}, "completions"),
    ],
)
def test_explain_names_api_in_the_refusal_of_a_body_chat_cannot_read(
    proxy: RunningRouter, body: dict[str, Any], api: str
) -> None:
    """Refused as chat refuses it (`messages` is missing), the message says which `api`."""
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json=body, timeout=30)
    assert reply.status_code == 400
    assert f'add "api": "{api}"' in reply.json()["error"]["message"]
    named = explained(proxy, {"api": api, **body})
    assert named["warning"] is None


def _classify_json(config: Path, *args: str, stdin: str | None = None) -> dict[str, Any]:
    """`smf-router classify --json ARGS` as a user runs it."""
    smf_router = Path(sys.executable).parent / "smf-router"
    done = subprocess.run(
        [str(smf_router), "classify", "--json", "--config", str(config), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize("text", ["fix it", "lgtm, ship it", "Integrate x^2 from 0 to 3.", ""])
def test_classify_json_is_what_explain_answers_for_a_prompt(
    proxy: RunningRouter, config_path: Path, text: str
) -> None:
    assert _classify_json(config_path, "--", text) == explained(proxy, chat(text))


@pytest.mark.parametrize("api", [None, "messages"])
def test_classify_json_is_what_explain_answers_for_a_body(
    proxy: RunningRouter, config_path: Path, tmp_path: Path, api: str | None
) -> None:
    """`--body FILE` reads a whole request, `--api` as explain's `api`: a Claude Code body
    could be checked only as one chat message (found in review)."""
    body_file = tmp_path / "body.json"
    body_file.write_text(json.dumps(CLAUDE_CODE), encoding="utf-8")
    options = ["--body", str(body_file), *(["--api", api] if api else [])]
    served = explained(proxy, {"api": api, **CLAUDE_CODE} if api else copy.deepcopy(CLAUDE_CODE))
    assert _classify_json(config_path, *options) == served
    on_stdin = _classify_json(config_path, "--body", "-", stdin=json.dumps(CLAUDE_CODE))
    assert on_stdin == explained(proxy, CLAUDE_CODE)


def test_explain_shows_the_refusal_serving_would_answer(proxy: RunningRouter) -> None:
    """A private request to the cloud backend was explained with a 200, `backends: []` and
    no word of the 400 that serving answers (found in review): `refusal` is that answer."""
    body, private = chat("Integrate x^2 from 0 to 3.", model="cloud"), {"x-smf-private": "yes"}
    plan = explained(proxy, body, **private)
    served = httpx.post(f"{proxy.root}/v1/chat/completions", json=body, headers=private, timeout=30)
    assert plan["backends"] == [] and plan["refusal"] is not None, plan
    assert plan["refusal"]["status"] == served.status_code == 400
    assert plan["refusal"]["message"] == served.json()["error"]["message"]
    assert plan["refusal"]["code"] == served.json()["error"]["code"]
    assert explained(proxy, body)["refusal"] is None  # the same body, not private: served
