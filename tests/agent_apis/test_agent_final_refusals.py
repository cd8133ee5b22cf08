"""A refusal the same request always gets again says so: `x-should-retry: false`
(`router.api.errors.FINAL`). Claude Code retries a 401 unless told not to, so a wrong router
key kept it retrying for about three minutes before its user saw why (found in review,
Claude Code 2.1.197); the SDKs honour the header before their status rules.

Against a router with one key, on a socket, with httpx and the `anthropic` SDK. Not with
the `openai` SDK: it never retries a 401 (its `_should_retry` retries 408, 409, 429 and
5xx), so a wrong key fails it after one request with or without the header; that the
header comes on chat's 401 is `test_a_refused_key_tells_the_sdk_not_to_retry`'s.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import orjson
import pytest

from router.api.errors import error_headers
from router.config import hash_key, parse
from router.errors import BodyTimeout, Unauthorized
from tests.harness import Running, RunningRouter, config_for, router, scrape, simulator

KEY, WRONG = "sk-team-alice-5d2e", "sk-wrong-key-91b0"
LIMIT = 64 * 1024
ASK: Any = [{"role": "user", "content": "Write a Python function that reverses a list."}]
BODIES: dict[str, Any] = {
    "/v1/messages": {"model": "auto", "max_tokens": 5, "messages": ASK},
    "/v1/messages/count_tokens": {"model": "auto", "messages": ASK},
    "/v1/chat/completions": {"model": "auto", "messages": ASK},
    "/v1/responses": {"model": "auto", "input": "Write a Python function that reverses a list."},
}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """One vLLM-like backend that speaks every API, behind a router key and a 64 KiB body
    limit."""
    tmp = tmp_path_factory.mktemp("final")
    with simulator(profile="vllm", model="local-model") as local:
        servers: dict[str, Running] = {"local": local}
        data = config_for(servers, tmp).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat", "completions", "responses", "messages"]
        data["auth"] = {"keys": [{"name": "alice", "sha256": hash_key(KEY)}]}
        data["server"] = {**data.get("server", {}), "max_body_bytes": LIMIT}
        with router(parse(data)) as running:
            yield running


def sent(
    proxy: RunningRouter,
    path: str,
    body: Any = None,
    key: str | None = KEY,
    method: str = "POST",
    **headers: str,
) -> httpx.Response:
    body = BODIES.get(path, {}) if body is None else body
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    if key is not None:
        headers["authorization"] = f"Bearer {key}"
    headers.setdefault("content-type", "application/json")
    return httpx.request(method, proxy.root + path, content=content, headers=headers, timeout=20)


@pytest.mark.parametrize("key", [WRONG, None], ids=["wrong key", "no key"])
@pytest.mark.parametrize("path", list(BODIES))
def test_a_refused_key_tells_the_sdk_not_to_retry(
    guarded: RunningRouter, path: str, key: str | None
) -> None:
    reply = sent(guarded, path, key=key)
    assert reply.status_code == 401, reply.text
    assert reply.headers.get("x-should-retry") == "false"


@pytest.mark.parametrize("path", list(BODIES))
def test_a_wrong_key_is_said_to_be_the_routers(guarded: RunningRouter, path: str) -> None:
    """The words "incorrect API key provided" read as the provider's refusal, to a user whose
    agent sent its OpenAI key to the router (found in review)."""
    reply = sent(guarded, path, key=WRONG)
    assert reply.status_code == 401, reply.text
    assert "incorrect router API key" in reply.json()["error"]["message"]


FINAL_CASES = [
    ("/v1/messages", 400, {"body": b"{not json"}),
    ("/v1/chat/completions", 400, {"body": {"model": "auto", "messages": "reverse a list"}}),
    ("/v1/messages", 404, {"body": {**BODIES["/v1/messages"], "model": "no-such-model"}}),
    ("/v1/chat/completions", 404, {"body": {**BODIES["/v1/chat/completions"], "model": "nope"}}),
    ("/v1/responses", 413, {"body": {"model": "auto", "input": "x" * (LIMIT + 1)}}),
    ("/v1/messages/count_tokens", 405, {"method": "GET", "body": b""}),
    ("/v1/messages", 403, {"origin": "https://evil.example"}),  # a web page's request
    (
        "/v1/chat/completions",
        415,
        {
            "body": gzip.compress(orjson.dumps(BODIES["/v1/chat/completions"])),
            "content-encoding": "gzip",
        },
    ),
]


@pytest.mark.parametrize(
    ("path", "status", "case"), FINAL_CASES, ids=[f"{c[1]} {c[0]}" for c in FINAL_CASES]
)
def test_every_refusal_a_retry_cannot_change_says_so(
    guarded: RunningRouter, path: str, status: int, case: dict[str, Any]
) -> None:
    reply = sent(guarded, path, **case)
    assert reply.status_code == status, reply.text
    assert reply.headers.get("x-should-retry") == "false"


class ClaudeCodeRetries(anthropic.Anthropic):
    """The `anthropic` SDK with Claude Code's retry rule (2.1.197): `x-should-retry` first,
    then a 401 retried (its key may have been refreshed meanwhile), then the SDK's rules."""

    def _should_retry(self, response: Any) -> bool:
        said = response.headers.get("x-should-retry")
        if said in ("true", "false"):
            return bool(said == "true")
        if response.status_code == 401:
            return True
        return bool(super()._should_retry(response))


def _refused(proxy: RunningRouter, api: str) -> float:
    counted = scrape(proxy.root).get("smf_router_rejected_requests_total", api=api, status="401")
    return counted or 0.0


def test_a_wrong_key_fails_claude_codes_client_after_one_request(guarded: RunningRouter) -> None:
    """Without the header, this client sent the request three times (its retries) before
    it raised; Claude Code's ten took minutes."""
    claude = ClaudeCodeRetries(base_url=guarded.root, auth_token=WRONG, api_key=None, max_retries=2)
    before = _refused(guarded, "messages")
    with pytest.raises(anthropic.AuthenticationError) as refused:
        claude.messages.create(**BODIES["/v1/messages"])
    assert _refused(guarded, "messages") - before == 1
    assert refused.value.response.headers["x-should-retry"] == "false"


def test_a_body_that_stopped_arriving_may_still_be_retried() -> None:
    """Not every 4xx: a 408 is the SDKs' to retry (the body may arrive whole next time),
    and 429s and 5xx keep their own advice (`router.api.errors.error_headers`)."""
    assert "x-should-retry" not in error_headers(BodyTimeout("the body stopped arriving"))
    assert error_headers(Unauthorized("incorrect API key provided"))["x-should-retry"] == "false"
