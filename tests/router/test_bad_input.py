"""Bad input gets a clear 4xx in OpenAI's shape and never a 5xx from the router itself."""

from __future__ import annotations

import gzip
import logging
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from router.config import hash_key
from router.logs import JsonFormatter
from tests.harness import Running, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import until
from tests.strategies import json_values

KEY, ADMIN = "sk-team-alice", "sk-ops-admin"


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        backends: dict[str, Running] = {"local": local, "cloud": cloud}
        keys = [
            {"name": "alice", "sha256": hash_key(KEY)},
            {"name": "ops", "sha256": hash_key(ADMIN), "admin": True},
        ]
        config = config_for(
            backends,
            tmp_path_factory.mktemp("bad"),
            auth={"keys": keys},
            server={"max_body_bytes": 64 * 1024},
        )
        with router(config) as running:
            yield running


def post(
    proxy: RunningRouter, body: Any, key: str | None = KEY, raw: bytes | None = None
) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    content = raw if raw is not None else orjson.dumps(body)
    return httpx.post(f"{proxy.url}/chat/completions", content=content, headers=headers, timeout=30)


def assert_openai_error(
    response: httpx.Response, status: int, param: str | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert isinstance(error["message"], str) and error["message"]
    assert set(error) >= {"message", "type", "param", "code"}
    assert error["code"] is None or isinstance(error["code"], str)
    if param:
        assert error["param"] == param
    return dict(error)


MESSAGES = [{"role": "user", "content": "hello"}]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": MESSAGES}, "model"),
        ({"model": 42, "messages": MESSAGES}, "model"),
        ({"model": "auto"}, "messages"),
        ({"model": "auto", "messages": []}, "messages"),
        ({"model": "auto", "messages": "hello"}, "messages"),
        ({"model": "auto", "messages": [42]}, "messages[0]"),
        ({"model": "auto", "messages": [{"content": "x"}]}, "messages[0].role"),
        ({"model": "auto", "messages": [{"role": "user", "content": 5}]}, "messages[0].content"),
        ({"model": "auto", "messages": MESSAGES, "stream": "yes"}, "stream"),
        ({"model": "auto", "messages": MESSAGES, "store": "false"}, "store"),
        ({"model": "auto", "messages": MESSAGES, "max_tokens": -1}, "max_tokens"),
        ({"model": "auto", "messages": MESSAGES, "max_tokens": "many"}, "max_tokens"),
    ],
)
def test_wrong_types_name_the_field(proxy: RunningRouter, body: dict[str, Any], param: str) -> None:
    assert_openai_error(post(proxy, body), 400, param)


@pytest.mark.parametrize("raw", [b"{not json", b"", b"[1, 2]", b'"text"', b"\xff\xfe"])
def test_malformed_json(proxy: RunningRouter, raw: bytes) -> None:
    assert_openai_error(post(proxy, None, raw=raw), 400)


def test_huge_body_is_413(proxy: RunningRouter) -> None:
    body = {"model": "auto", "messages": [{"role": "user", "content": "x" * 100_000}]}
    refused = post(proxy, body)
    assert_openai_error(refused, 413)
    assert refused.headers["x-request-id"]  # the id a user quotes in a report


def test_unknown_model_is_404_with_the_choices(proxy: RunningRouter) -> None:
    error = assert_openai_error(
        post(proxy, {"model": "gpt-17", "messages": MESSAGES}), 404, "model"
    )
    assert error["code"] == "model_not_found" and "auto" in error["message"]


def test_missing_and_wrong_keys_are_401(proxy: RunningRouter) -> None:
    body = {"model": "auto", "messages": MESSAGES}
    assert_openai_error(post(proxy, body, key=None), 401)
    error = assert_openai_error(post(proxy, body, key="sk-wrong"), 401)
    assert "sk-wrong" not in error["message"]


def test_sdk_raises_the_right_exception_types(proxy: RunningRouter) -> None:
    bad = openai.OpenAI(base_url=proxy.url, api_key="sk-wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.models.list()
    good = openai.OpenAI(base_url=proxy.url, api_key=KEY, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        good.chat.completions.create(model="nope", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.BadRequestError):
        good.chat.completions.create(model="auto", messages=[])


def test_caller_name_reaches_the_record_and_never_the_key(proxy: RunningRouter) -> None:
    seen: list[str] = []

    class Spy:
        def record_finished(self, record: Any) -> None:
            seen.append(record.caller)
            assert KEY not in repr(record)

    spy = Spy()
    proxy.components.gateway.sinks.append(spy)
    try:
        assert post(proxy, {"model": "local", "messages": MESSAGES}).status_code == 200
        for _ in range(100):  # the record is finished after the reply was sent
            if seen:
                break
            time.sleep(0.02)
    finally:
        proxy.components.gateway.sinks.remove(spy)
    assert seen == ["alice"]


def test_admin_endpoints_need_the_admin_key(proxy: RunningRouter) -> None:
    url = f"{proxy.root}/v1/router/status"
    assert httpx.get(url).status_code == 401
    # status is for every caller; reload and the report need the admin key
    assert httpx.get(url, headers={"authorization": f"Bearer {KEY}"}).status_code == 200
    reload = f"{proxy.root}/v1/router/reload"
    assert httpx.post(reload, headers={"authorization": f"Bearer {KEY}"}).status_code == 403
    assert httpx.get(url, headers={"authorization": f"Bearer {ADMIN}"}).status_code == 200


def test_unknown_path_is_an_openai_404(proxy: RunningRouter) -> None:
    response = httpx.get(f"{proxy.url}/nothing-here")
    assert_openai_error(response, 404)


def test_no_openapi_schema_is_served(proxy: RunningRouter) -> None:
    """FastAPI's default `/openapi.json` answered without a key, listing every endpoint
    (found in review)."""
    response = httpx.get(f"{proxy.root}/openapi.json")
    assert_openai_error(response, 404)
    assert response.json()["error"]["code"] == "not_found"
    assert "does not serve GET /openapi.json" in response.json()["error"]["message"]


def test_an_api_it_does_not_route_says_what_it_serves(proxy: RunningRouter) -> None:
    """An agent with one base URL for every API (Continue indexing with embeddings) heard
    "Not Found", which reads like a wrong base URL."""
    client = openai.OpenAI(base_url=proxy.url, api_key=KEY, max_retries=0)
    with pytest.raises(openai.NotFoundError) as caught:
        client.embeddings.create(model="text-embedding-3-small", input="hello")
    message = caught.value.message
    assert "does not serve POST /v1/embeddings" in message
    assert "routes POST /v1/chat/completions" in message and "count_tokens" in message
    assert "GET /v1/models, /v1/models/{name}" in message  # the second was missing
    assert "Point clients of other APIs (embeddings" in message


@pytest.mark.parametrize(
    ("path", "meant"),
    [
        ("/chat/completions", "/v1/chat/completions"),
        ("/v1/v1/chat/completions", "/v1/chat/completions"),
    ],
)
def test_a_served_path_with_v1_missing_or_doubled_names_the_base_url(
    proxy: RunningRouter, path: str, meant: str
) -> None:
    """Told to point "other APIs" at a backend, a client whose base URL lacked `/v1` (or
    had it twice) was sent the wrong way (found in review)."""
    response = httpx.post(proxy.root + path, json={}, headers={"authorization": f"Bearer {KEY}"})
    assert_openai_error(response, 404)
    message = response.json()["error"]["message"]
    assert "check the client's base URL, which should end in /v1" in message
    assert f"would then be {meant}" in message


def test_an_anthropic_base_url_ending_in_v1_is_told_to_drop_it(proxy: RunningRouter) -> None:
    """Claude Code with `ANTHROPIC_BASE_URL=.../v1` sends /v1/v1/messages, and was told its
    base URL "should end in /v1", in the OpenAI envelope (found in review)."""
    import anthropic

    client = anthropic.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0)
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.messages.create(
            model="auto", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        )
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "error"  # Anthropic's envelope
    assert "base URL must not end in /v1" in body["error"]["message"]


def test_a_model_is_retrieved_by_name(proxy: RunningRouter) -> None:
    """The OpenAI SDK's `models.retrieve` got "this path is not served"."""
    client = openai.OpenAI(base_url=proxy.url, api_key=KEY, max_retries=0)
    listed = {m.id for m in client.models.list()}
    assert client.models.retrieve("auto").id == "auto" and "auto" in listed
    with pytest.raises(openai.NotFoundError) as caught:
        client.models.retrieve("gpt-17")
    assert caught.value.code == "model_not_found" and "gpt-17" in caught.value.message


bodies = st.fixed_dictionaries(
    {},
    optional={
        "model": st.sampled_from(["auto", "local", "coding", "nope", ""]) | json_values,
        "messages": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "role": st.sampled_from(["user", "system", "tool"]) | json_values,
                    "content": json_values,
                },
            )
            | json_values,
            max_size=3,
        )
        | json_values,
        "stream": st.booleans() | json_values,
        "max_tokens": st.integers(-5, 50) | json_values,
        "tools": json_values,
        "stream_options": json_values,
    },
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies)
def test_no_body_makes_the_router_answer_5xx(proxy: RunningRouter, body: dict[str, Any]) -> None:
    response = post(proxy, body)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert "error" in response.json()


REQUEST_LINE = '"event":"request"'


class Lines(logging.Handler):
    """Every record of the router's loggers as the router writes it: a JSON line."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_keys_are_not_in_logs(proxy: RunningRouter) -> None:
    """No key, right or wrong, in any line the router's loggers write, at any level, in any
    field: our own JSON handler on `smf_router` at DEBUG sees what a default capture did not
    (it stopped at WARNING and read only the message; the request line is INFO and its
    numbers are structured fields)."""
    ours = logging.getLogger("smf_router")
    lines, level = Lines(), ours.level
    ours.addHandler(lines)
    ours.setLevel(logging.DEBUG)
    body = {"model": "local", "messages": MESSAGES}
    try:
        right, wrong = post(proxy, body), post(proxy, body, key="sk-leaky-key")
        until(lambda: any(REQUEST_LINE in line for line in lines.lines), what="a request line")
    finally:
        ours.removeHandler(lines)
        ours.setLevel(level)
    assert (right.status_code, wrong.status_code) == (200, 401)
    request = next(orjson.loads(line) for line in lines.lines if REQUEST_LINE in line)
    assert request["caller"] == "alice"  # INFO and its structured fields are seen
    for line in lines.lines:
        assert KEY not in line and "sk-leaky-key" not in line, line


def test_a_refused_request_line_says_why(proxy: RunningRouter) -> None:
    """Every 400, 404, 413 or 415 line read `"outcome":"client_error"` and nothing else: the
    record's `error_kind` was never written (found in review)."""
    request_log = logging.getLogger("smf_router.request")
    lines, level = Lines(), request_log.level
    request_log.addHandler(lines)
    request_log.setLevel(logging.INFO)
    try:
        for model in ("gpt-17", "local"):  # the 404, then a 200 after it
            post(proxy, {"model": model, "messages": MESSAGES})
        until(lambda: sum(REQUEST_LINE in line for line in lines.lines) >= 2, what="2 lines")
    finally:
        request_log.removeHandler(lines)
        request_log.setLevel(level)
    found = [orjson.loads(line) for line in lines.lines if REQUEST_LINE in line]
    kinds = {(r["status"], r["outcome"], r["error_kind"]) for r in found}
    assert kinds == {(404, "client_error", "model_not_found"), (200, "ok", None)}


def test_requests_the_router_refuses_itself_are_counted(proxy: RunningRouter) -> None:
    """A refusal before any backend is chosen leaves no record: without their own counter a
    flood of bad keys or bodies was invisible on the dashboards (found in review)."""

    def refused(api: str, status: str) -> float:
        text = httpx.get(f"{proxy.root}/metrics", timeout=5).text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "smf_router_rejected_requests_total" and sample.labels == {
                    "api": api,
                    "status": status,
                }:
                    return float(sample.value)
        return 0.0

    before = {s: refused("chat", s) for s in ("400", "401", "404")}
    bad = openai.OpenAI(base_url=proxy.url, api_key="sk-wrong", max_retries=0)
    good = openai.OpenAI(base_url=proxy.url, api_key=KEY, max_retries=0)
    ask = [{"role": "user", "content": "x"}]
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="auto", messages=ask)  # type: ignore[arg-type]
    with pytest.raises(openai.NotFoundError):
        good.chat.completions.create(model="nope", messages=ask)  # type: ignore[arg-type]
    with pytest.raises(openai.BadRequestError):
        good.chat.completions.create(model="auto", messages=[])
    after = {s: refused("chat", s) for s in ("400", "401", "404")}
    assert {s: after[s] - before[s] for s in after} == {"400": 1, "401": 1, "404": 1}


@pytest.mark.parametrize(
    "path",
    ["/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens", "/v1/router/explain"],
)
@pytest.mark.parametrize("coding", ["gzip", "br", "deflate, identity"])
def test_a_compressed_body_is_415_not_invalid_json(
    proxy: RunningRouter, path: str, coding: str
) -> None:
    """Nothing decodes a request body: a gzip one was a 400 "not valid JSON: str is not
    valid UTF-8" (found in review). Now the encoding is named, in each API's envelope."""
    body = {"model": "auto", "messages": MESSAGES, "max_tokens": 5}
    headers = {
        "authorization": f"Bearer {ADMIN}",
        "content-type": "application/json",
        "content-encoding": coding,
    }
    response = httpx.post(
        f"{proxy.root}{path}", content=gzip.compress(orjson.dumps(body)), headers=headers
    )
    assert response.status_code == 415, response.text
    assert response.headers["accept-encoding"] == "identity"  # RFC 9110: what it would take
    assert response.headers["x-request-id"]  # the id a user quotes in a report
    if path.startswith("/v1/messages"):  # Claude Code reads Anthropic's envelope
        assert response.headers["request-id"] == response.headers["x-request-id"]
        assert response.json()["type"] == "error"
        error = response.json()["error"]
        assert error["type"] == "invalid_request_error"
    else:
        error = assert_openai_error(response, 415)
        assert error["code"] == "unsupported_content_encoding"
    assert f"encoded ({coding})" in error["message"]
    assert "Content-Encoding is not supported" in error["message"]


def test_an_identity_encoding_is_read_as_it_is(proxy: RunningRouter) -> None:
    body = {"model": "auto", "messages": MESSAGES, "max_tokens": 5}
    headers = {"authorization": f"Bearer {KEY}", "content-encoding": "identity"}
    response = httpx.post(f"{proxy.url}/chat/completions", json=body, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
