"""Shadowing through a real router: live bytes untouched, comparisons in the ledger, privacy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import yaml

from router import reload
from router.config import parse
from router.ledger import Ledger
from tests.harness import Running, config_for, router, simulator
from tests.shadow.shadow_status import (
    chats,
    comparison_rows,
    shadow_status,
    shadowed_locally,
    until,
)

MATH = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}


def _upstream_bytes(server: Running, body: dict[str, Any]) -> bytes:
    """The server's own reply to `body`, asked directly."""
    response = httpx.post(f"{server.url}/chat/completions", json=body, timeout=10)
    response.raise_for_status()
    return response.content


def _post(
    r: Running, body: dict[str, Any], headers: dict[str, str] | None = None
) -> httpx.Response:
    response = httpx.post(f"{r.url}/chat/completions", json=body, headers=headers, timeout=10)
    response.raise_for_status()
    return response


def test_live_bytes_identical_with_shadowing_on_and_comparison_stored(tmp_path: Path) -> None:
    """The cloud sends the same bytes for the same request (`repeatable`), a token every
    20 ms when streaming, so the client's bytes can be compared: with shadowing on and off,
    and with the cloud's own reply to what the router sent it."""
    got: dict[str, list[bytes]] = {}
    with (
        simulator(
            profile="cloud", model="cloud-model", repeatable=True, keep_requests=8, tokens_per_s=50
        ) as cloud,
        simulator(profile="vllm", model="local-model") as local,
    ):
        for mode, rates in (("off", {}), ("on", {"math": 1.0})):
            config = config_for(
                {"local": local, "cloud": cloud}, tmp_path / mode, shadow={"rates": rates}
            )
            with router(config) as r:
                whole = _post(r, MATH)
                assert whole.headers["x-smf-backend"] == "cloud"
                streamed = _post(r, {**MATH, "stream": True})
                got[mode] = [whole.content, streamed.content]
                if mode == "on":
                    until(lambda r=r: shadow_status(r)["counts"].get("compared", 0) == 2)
                else:
                    assert shadow_status(r) == {}
        assert chats(local) == 2  # the two shadows; live went to the cloud
        forwarded = cloud.stats()["recent_requests"]
        assert forwarded[:2] == forwarded[2:]  # the router asked the same with shadowing on
        own = _upstream_bytes(cloud, forwarded[2])
    assert got["on"] == got["off"]
    assert got["on"][0] == own  # what the cloud sent, untouched
    with Ledger(tmp_path / "on" / "ledger") as ledger:
        columns = "live_backend, shadow_backend, agreed, method, shadow_cost_usd"
        rows = ledger.sql(f"SELECT {columns} FROM shadow_comparisons")
        records = ledger.sql("SELECT backend, count(*) FROM records GROUP BY 1")
    assert rows == [("cloud", "local", True, "final_answer", 0.0)] * 2
    assert records == [("cloud", 2)]  # shadows never become records (or spend)


def test_private_requests_never_leave_the_local_tier(tmp_path: Path) -> None:
    code = {
        "model": "auto",
        "messages": [{"role": "user", "content": "Write a Python function add(a, b)."}],
    }
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        shadow = {"rates": {"coding": 1.0}, "allow_cloud_targets": True}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, shadow=shadow)
        with router(config) as r:
            for _ in range(3):
                response = _post(r, code, {"x-smf-private": "true"})
                assert response.headers["x-smf-backend"] == "local"
            until(lambda: shadow_status(r)["counts"].get("dropped_private", 0) == 3)
            _post(r, code)  # not private: allowed to mirror to the cloud
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 1)
        assert chats(cloud) == 1


TOOLS_MESSAGES = [
    {
        "name": "get_weather",
        "description": "Current weather for a city",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
AGENT_BODIES: dict[str, dict[str, Any]] = {
    "messages": {
        "model": "auto",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "What is 1234 + 4321?"}],
    },
    "responses": {"model": "auto", "input": "What is 1234 + 4321?"},
}


def _shadow_rows(path: Path) -> list[tuple[Any, ...]]:
    with Ledger(path) as ledger:
        return ledger.sql(
            "SELECT live_backend, shadow_backend, agreed, method, shadow_error"
            " FROM shadow_comparisons ORDER BY ts"
        )


def test_claude_code_and_codex_traffic_is_mirrored_too(tmp_path: Path) -> None:
    """Messages and Responses requests, whole and streamed, are shadowed in chat and compared;
    a Messages tool call is compared as a tool call."""
    weather = {
        **AGENT_BODIES["messages"],
        "messages": [{"role": "user", "content": "What's the weather in Paris? Use the tool."}],
        "tools": TOOLS_MESSAGES,
        "tool_choice": {"type": "any"},
    }
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(shadowed_locally(local, cloud, tmp_path, ["math", "tool_calling"])) as r:
            for api, body in AGENT_BODIES.items():
                for stream in (False, True):
                    reply = httpx.post(
                        f"{r.url}/{api}", json={**body, "stream": stream}, timeout=10
                    )
                    assert reply.status_code == 200 and reply.headers["x-smf-backend"] == "cloud"
            for stream in (False, True):
                reply = httpx.post(
                    f"{r.url}/messages", json={**weather, "stream": stream}, timeout=10
                )
                assert reply.status_code == 200 and reply.headers["x-smf-intent"] == "tool_calling"
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 6)
        assert chats(local) == 6  # every shadow asked in chat
    rows = _shadow_rows(tmp_path / "ledger")
    assert rows[:4] == [("cloud", "local", True, "final_answer", None)] * 4
    assert rows[4:] == [("cloud", "local", True, "tool_call", None)] * 2


def test_a_messages_call_whose_arguments_are_no_json_agrees_with_its_shadow(
    tmp_path: Path,
) -> None:
    """A small model's `{"city": Paris}`: the live Messages reply, translated from chat,
    carries it wrapped (`{"_raw_arguments": ...}`: a tool_use input is an object), the
    shadow asked in chat as it came. The same call, whole or streamed, yet it never agreed
    (found in review)."""
    weather = {
        **AGENT_BODIES["messages"],
        "messages": [{"role": "user", "content": "What's the weather in Paris? Use the tool."}],
        "tools": TOOLS_MESSAGES,
        "tool_choice": {"type": "any"},
    }
    with (
        simulator(profile="vllm", model="local-model", fault="malformed_arguments") as local,
        simulator(profile="cloud", model="cloud-model", fault="malformed_arguments") as cloud,
    ):
        config = shadowed_locally(local, cloud, tmp_path, ["tool_calling"]).model_dump()
        for backend in config["backends"]:  # the live reply is translated from chat
            backend["apis"] = ["chat"]
        with router(parse(config)) as r:
            for stream in (False, True):
                reply = httpx.post(
                    f"{r.url}/messages", json={**weather, "stream": stream}, timeout=10
                )
                assert reply.status_code == 200 and "_raw_arguments" in reply.text
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 2)
        assert chats(local) == 2 and chats(cloud) == 2
    rows = _shadow_rows(tmp_path / "ledger")
    assert rows == [("cloud", "local", True, "tool_call", None)] * 2


def test_shadowing_follows_a_hot_reload(tmp_path: Path) -> None:
    """A reload that moves the local backend to another server and turns the rate off: the
    shadow goes to the new server while on, and stops when off (both read per request)."""
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model") as old,
        simulator(profile="vllm", model="local-model") as new,
    ):
        config = config_for(
            {"local": old, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        )
        data = config.model_dump(mode="json")
        path = tmp_path / "router.yaml"
        with router(config) as r:
            reload.reloader_of(r.components).source = path
            _post(r, MATH)
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 1)
            moved = {
                **data,
                "backends": [
                    {**b, "base_url": new.url} if b["name"] == "local" else b
                    for b in data["backends"]
                ],
            }
            path.write_text(yaml.safe_dump(moved))
            assert httpx.post(f"{r.url}/router/reload", timeout=30).status_code == 200
            _post(r, MATH)
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 2)
            off = {**moved, "shadow": {**moved["shadow"], "rates": {}}}
            path.write_text(yaml.safe_dump(off))
            answer = httpx.post(f"{r.url}/router/reload", timeout=30)
            assert answer.status_code == 200 and answer.json()["restart_needed"] == []
            _post(r, MATH)
            sampled = shadow_status(r)["counts"]["sampled"]
            bigger = {
                **moved,
                "shadow": {
                    **moved["shadow"],
                    "queue_size": 500,
                    "queue_bytes": 10**8,
                    "max_concurrency": 7,
                },
            }
            path.write_text(yaml.safe_dump(bigger))  # rates back on, queue and pool: no restart
            answer = httpx.post(f"{r.url}/router/reload", timeout=30)
            assert answer.json()["restart_needed"] == []
            status = shadow_status(r)
            assert (status["max_concurrency"], status["queue_bytes"]) == (7, 10**8)
            _post(r, MATH)  # and the running shadow replays again, to the moved backend
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 3)
        assert (chats(old), chats(new)) == (1, 2)
        assert sampled == 2  # the third request, after the rate went to 0, was not sampled


def test_a_clients_tests_run_only_when_the_operator_opts_in(tmp_path: Path) -> None:
    """A coding request's fenced asserts are code any API client wrote: the shadow ran them on
    the router host for every sampled request (found in review). Off by default, the
    comparison stays on parsing and definitions and says the tests were not run."""
    tests = "```python\nimport math\nassert math.floor(2.5) == 2\n```"
    body = {"model": "coding", "messages": [{"role": "user", "content": f"Write add.\n{tests}"}]}
    rows: dict[str, list[tuple[Any, ...]]] = {}
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="local2-model") as local2,
    ):
        for mode, run in (("default", None), ("opted_in", True)):
            shadow: dict[str, Any] = {"rates": {"coding": 1.0}, "targets": {"coding": "local2"}}
            if run is not None:
                shadow["run_request_tests"] = run
            config = config_for({"local": local, "local2": local2}, tmp_path / mode, shadow=shadow)
            with router(config) as r:
                assert _post(r, body).headers["x-smf-backend"] == "local"
                until(lambda r=r: shadow_status(r)["counts"].get("compared", 0) == 1)
            rows[mode] = comparison_rows(tmp_path / mode / "ledger")
    assert rows["default"] == [
        (True, "code_defs", "both parse, same 1 top-level defs; the request's tests not run")
    ]
    assert rows["opted_in"] == [(True, "code_tests", "live tests True, shadow True")]


def test_a_clients_tests_cannot_cost_the_comparison_its_row(tmp_path: Path) -> None:
    """Tests that rewrite the head of their own stderr made the sandbox look broken: the
    exception escaped the comparison and no row was written (found in review)."""
    tests = "```python\nimport os\nos.pwrite(2, b'X' * 40, 0)\nassert True\n```"
    body = {"model": "coding", "messages": [{"role": "user", "content": f"Write add.\n{tests}"}]}
    shadow = {"rates": {"coding": 1.0}, "targets": {"coding": "local2"}, "run_request_tests": True}
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="local2-model") as local2,
    ):
        config = config_for({"local": local, "local2": local2}, tmp_path, shadow=shadow)
        with router(config) as r:
            assert _post(r, body).headers["x-smf-backend"] == "local"
            until(lambda: shadow_status(r)["counts"].get("compared", 0) == 1)
    assert comparison_rows(tmp_path / "ledger") == [
        (True, "code_tests", "live tests True, shadow True")
    ]
