"""A request to a path the router does not serve is logged, sparingly (`router.api.unserved`).

A client that kept sending `POST /v1/embeddings` got its 404, and the operator heard
nothing: only `rejected_requests_total{api="other"}` went up, naming no path."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx
import pytest

from router.api import unserved as unserved_module
from router.api.unserved import PATH_CHARS, Unserved
from router.config import hash_key
from tests.harness import RunningRouter, config_for, router, simulator

KEY = "sk-team-alice"


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with simulator(profile="vllm", model="local-model") as local:
        keys = [{"name": "alice", "sha256": hash_key(KEY)}]
        config = config_for({"local": local}, tmp_path_factory.mktemp("un"), auth={"keys": keys})
        with router(config) as running:
            yield running


@pytest.fixture(autouse=True)
def fresh_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's lines as if no test before had sent these paths."""
    monkeypatch.setattr(unserved_module, "LINES", Unserved())


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "smf_router.api"]


def test_an_unserved_path_is_logged_once_naming_method_path_and_caller(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture
) -> None:
    path = "/v1/embeddings"
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        for _ in range(3):
            response = httpx.post(
                proxy.root + path,
                json={"input": "a secret prompt"},
                headers={"authorization": f"Bearer {KEY}"},
            )
            assert response.status_code == 404
    said = [line for line in lines(caplog) if path in line]
    assert len(said) == 1  # the first; the others wait for the interval
    assert said[0].startswith(f"404 for POST {path} (caller alice)")
    assert KEY not in said[0] and "secret prompt" not in said[0]


def test_a_wrong_method_is_logged_and_a_refused_key_names_no_caller(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        assert httpx.get(f"{proxy.url}/chat/completions").status_code == 405
        wrong_key = {"x-api-key": "nope"}
        assert httpx.post(f"{proxy.url}/audio/speech", headers=wrong_key).status_code == 404
    said = lines(caplog)
    wrong_method = "405 for GET /v1/chat/completions (caller unknown)"
    assert any(line.startswith(wrong_method) for line in said)
    assert any("POST /v1/audio/speech (caller unknown)" in line for line in said)


def test_a_refused_websocket_is_logged_with_the_405s_advice(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """The operator is told what the client is (`errors.wrong_method`): its transport, not
    its base URL, is the thing to change; any other wrong method keeps the usual advice."""
    upgrade = {"connection": "Upgrade", "upgrade": "websocket", "sec-websocket-version": "13"}
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        assert httpx.get(f"{proxy.url}/responses", headers=upgrade).status_code == 405
        assert httpx.get(f"{proxy.url}/chat/completions", headers=upgrade).status_code == 405
    said = lines(caplog)
    (websocket,) = [line for line in said if "GET /v1/responses " in line]
    assert "HTTP transport" in websocket and "another base URL" not in websocket
    (other,) = [line for line in said if "GET /v1/chat/completions " in line]
    assert "another base URL" in other


def test_a_flood_of_paths_is_bounded_in_memory_and_in_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    unserved = Unserved(interval_s=60.0, remembered=2, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        for index in range(1000):
            unserved.seen("GET", f"/scan/{index}", 404, None)
        unserved.seen("GET", "/scan/0", 404, None)  # remembered: within its interval
        now[0] = 61.0
        unserved.seen("GET", "/scan/0", 404, None)
        unserved.seen("GET", "/scan/5000", 404, None)
    assert len(unserved.pairs) == 2
    said = lines(caplog)
    # /scan/0 and /scan/1 on their own, one for all new past them; then /scan/0, remembered
    # again at 0 s, on its own after 60 s, and one more for the newcomers
    assert len(said) == 5
    assert "GET /scan/2 " in said[2] and "new while 2 others were remembered" in said[2]
    assert "GET /scan/0 " in said[3] and "(0 such lines held back since the last;" in said[3]
    assert "GET /scan/5000 " in said[4] and "(998 such lines held back" in said[4]


def test_a_path_first_sent_after_the_table_filled_gets_lines_of_its_own(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The first `remembered` pairs were held for the process's life: a client misconfigured
    after them (behind a client asking for stored responses, one path each) only ever shared
    the newcomers' line, and was named only when its request was the one that passed."""
    now = [0.0]
    unserved = Unserved(interval_s=60.0, remembered=3, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        for index in range(1000):
            unserved.seen("GET", f"/v1/responses/resp_{index}", 404, None)
        unserved.seen("POST", "/v1/embeddings", 404, "alice")  # the newcomers' line passed
        now[0] = 30.0
        unserved.seen("GET", "/v1/responses/resp_1000", 404, None)
        now[0] = 61.0
        unserved.seen("GET", "/v1/responses/resp_1001", 404, None)  # the newcomers' line
        unserved.seen("POST", "/v1/embeddings", 404, "alice")
    named = [line for line in lines(caplog) if "/v1/embeddings" in line]
    assert len(named) == 1
    assert named[0].startswith("404 for POST /v1/embeddings (caller alice)")
    assert "new while" not in named[0]  # a line of its own


def test_a_long_or_unprintable_path_is_cut_and_escaped(caplog: pytest.LogCaptureFixture) -> None:
    unserved = Unserved()
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        unserved.seen("GET", "/x\n200 fake line" + "a" * 1000, 404, None)
    (line,) = lines(caplog)
    assert "\n" not in line and "\\n200 fake line" in line
    assert "a" * (PATH_CHARS + 1) not in line


def test_claude_codes_start_up_probe_is_answered_and_not_logged(
    proxy: RunningRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """`HEAD /api/hello` on every start of Claude Code: a 404 it expects, no warning."""
    with caplog.at_level(logging.WARNING, logger="smf_router.api"):
        assert httpx.head(proxy.root + "/api/hello").status_code == 404
        assert httpx.get(proxy.root + "/api/hello").status_code == 404
    said = [line for line in lines(caplog) if "/api/hello" in line]
    assert len(said) == 1 and said[0].startswith("404 for GET /api/hello")
