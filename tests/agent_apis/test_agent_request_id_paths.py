"""Every answer on Anthropic's paths (`/v1/messages`, `/v1/messages/count_tokens`, and the
near misses that get a 404, 405 or a redirect there) carries `request-id`, equal to
`x-request-id`: whoever answered it (the front, a FastAPI endpoint, an error handler, the
app's own refusal before either, Starlette's redirect) and whatever it says. The `anthropic`
SDK reads the id from `request-id` only (`router.api.anthropic_paths`).

Against a router with a key and a small body limit, on a socket, with httpx and the
`anthropic` SDK.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import orjson
import pytest

from router.config import hash_key, parse
from tests.agent_apis.agent_stack import stack_config
from tests.harness import Running, RunningRouter, router

KEY = "sk-team-alice-3f9a"
LIMIT = 64 * 1024
ASK: Any = [{"role": "user", "content": "Write a Python function that reverses a list."}]
ASKED = {"model": "cloud", "max_tokens": 5, "messages": ASK}
MESSAGES, COUNT = "/v1/messages", "/v1/messages/count_tokens"


@pytest.fixture(scope="module")
def guarded(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The agent stack's router with a router key and a 64 KiB body limit."""
    tmp = tmp_path_factory.mktemp("request_ids")
    data = stack_config(servers, tmp, ["local", "cloud"]).model_dump(mode="json")
    data["auth"] = {"keys": [{"name": "alice", "sha256": hash_key(KEY)}]}
    data["server"] = {**data.get("server", {}), "max_body_bytes": LIMIT}
    with router(parse(data)) as running:
        yield running


def sent(
    proxy: RunningRouter,
    path: str,
    body: Any = ASKED,
    key: str | None = KEY,
    method: str = "POST",
    **headers: str,
) -> httpx.Response:
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    if key is not None:
        headers["authorization"] = f"Bearer {key}"
    headers.setdefault("content-type", "application/json")
    return httpx.request(method, proxy.root + path, content=content, headers=headers, timeout=20)


def both(status: int, **case: Any) -> list[tuple[str, int, dict[str, Any]]]:
    """The same case on `/v1/messages` and on `/v1/messages/count_tokens`."""
    return [(f"{path} {case}", status, {"path": path, **case}) for path in (MESSAGES, COUNT)]


CASES = [
    *both(400, body=b"{not json"),
    *both(400, body={**ASKED, "messages": "reverse a list"}),  # a wrong type
    *both(413, body={**ASKED, "system": "x" * (LIMIT + 1)}),
    *both(401, key=None),
    *both(401, key="sk-wrong-key-7c1e"),
    *both(404, body={**ASKED, "model": "no-such-model"}),
    *both(405, method="GET", body=b""),
    *both(403, origin="https://evil.example"),  # a web page's request
    *both(415, body=gzip.compress(orjson.dumps(ASKED)), **{"content-encoding": "gzip"}),
    ("a wrong max_tokens", 400, {"path": MESSAGES, "body": {**ASKED, "max_tokens": "five"}}),
    ("a doubled /v1", 404, {"path": "/v1/v1/messages"}),
    ("a path under /v1/messages", 404, {"path": "/v1/messages/batches"}),
    # Starlette's redirect of a trailing slash, which named no id at all
    *[(f"{path}/ redirected", 307, {"path": path + "/"}) for path in (MESSAGES, COUNT)],
]


@pytest.mark.parametrize(("status", "case"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_refusal_on_anthropics_paths_names_its_id_both_ways(
    guarded: RunningRouter, status: int, case: dict[str, Any]
) -> None:
    reply = sent(guarded, **case)
    assert reply.status_code == status, reply.text
    assert reply.headers["x-request-id"]
    assert reply.headers.get("request-id") == reply.headers["x-request-id"]


def test_every_answer_on_anthropics_paths_names_its_id_both_ways(
    guarded: RunningRouter, servers: dict[str, Running]
) -> None:
    """Served whole and streamed, counted, and a backend's own error, through the SDK."""
    sdk = anthropic.Anthropic(base_url=guarded.root, auth_token=KEY, api_key=None, max_retries=0)
    whole = sdk.messages.with_raw_response.create(**ASKED)
    with sdk.messages.with_streaming_response.create(**ASKED, stream=True) as streamed:
        "".join(streamed.iter_text())
    counted = sdk.messages.with_raw_response.count_tokens(model="claude", messages=ASK)
    servers["claude"].control("faults", {"fault": "server_error"})
    try:
        with pytest.raises(anthropic.APIStatusError) as failed:
            sdk.messages.create(**{**ASKED, "model": "claude"})
    finally:
        servers["claude"].control("faults", {"fault": None})
    answers = [whole, streamed, counted, failed.value.response]
    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    assert failed.value.status_code >= 500
    for answer in answers:
        assert answer.headers["x-request-id"]
        assert answer.headers.get("request-id") == answer.headers["x-request-id"]
    assert failed.value.request_id == failed.value.response.headers["x-request-id"]
    assert whole.request_id == whole.headers["x-request-id"]
