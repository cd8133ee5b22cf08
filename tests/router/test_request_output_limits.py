"""A chat body with both `max_tokens` and `max_completion_tokens`: vLLM and OpenAI serve it
by `max_completion_tokens`, so the router's window check reads that one, and a 400 for a
field that is not a positive integer names the field sent. Real sockets: the router over
two simulators whose configured windows are small."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest

from router.record import Api
from router.refusals import PROMPT_FIELDS
from router.request_size import OUTPUT_LIMITS
from tests.harness import Running, RunningRouter, router, simulator
from tests.router.context_windows import windowed

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningRouter, Running, Running]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        tmp: Path = tmp_path_factory.mktemp("limits")
        with router(windowed(local, cloud, tmp, (100, 200))) as proxy:
            yield proxy, local, cloud


def post(proxy: RunningRouter, **limits: Any) -> httpx.Response:
    body = {"model": "auto", "messages": HI, **limits}
    return httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30)


def test_max_completion_tokens_wins_over_max_tokens_for_the_window(
    stack: tuple[RunningRouter, Running, Running],
) -> None:
    """{max_tokens: 500, max_completion_tokens: 10} was refused as over every window (the
    router read `max_tokens`) though the backend serves it by its 10 (found in review); the
    other way round, it was sent on, over the window the backend is configured with."""
    proxy, local, cloud = stack
    reply = post(proxy, max_tokens=500, max_completion_tokens=10)
    assert reply.status_code == 200, reply.text
    served = {"local": local, "cloud": cloud}[reply.headers["x-smf-backend"]]
    sent = served.stats()["last_request"]
    assert (sent["max_tokens"], sent["max_completion_tokens"]) == (500, 10)
    before = local.completions() + cloud.completions()
    reply = post(proxy, max_tokens=10, max_completion_tokens=500)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert (error["code"], error["param"]) == ("context_length_exceeded", "max_completion_tokens")
    assert "lower max_completion_tokens" in error["message"]
    assert local.completions() + cloud.completions() == before  # nothing was sent


def _not_an_integer(field: str, got: str) -> str:
    """OpenAI's words for a limit of the wrong JSON kind (`router.field_refusals`)."""
    return f"Invalid type for '{field}': expected an integer, but got {got} instead."


@pytest.mark.parametrize(
    ("limits", "field", "message", "code"),
    [
        (
            {"max_completion_tokens": "abc"},
            "max_completion_tokens",
            _not_an_integer("max_completion_tokens", "a string"),
            "invalid_type",
        ),
        (
            {"max_tokens": 10, "max_completion_tokens": 0},
            "max_completion_tokens",
            "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1,"
            " but got 0 instead.",
            "integer_below_min_value",
        ),
        (
            {"max_completion_tokens": 10, "max_tokens": True},
            "max_tokens",
            _not_an_integer("max_tokens", "a boolean"),
            "invalid_type",
        ),
    ],
)
def test_a_limit_that_is_not_a_positive_integer_is_named(
    stack: tuple[RunningRouter, Running, Running],
    limits: dict[str, Any],
    field: str,
    message: str,
    code: str | None,
) -> None:
    """`max_completion_tokens: "abc"` was refused as `'max_tokens' must be …`, naming a
    field the client had not sent (found in review); beside a valid `max_tokens` it went on
    to the backend. A value of the wrong kind is OpenAI's `invalid_type`, one below 1 its
    `integer_below_min_value`, in its words (the latter's code was null)."""
    proxy, local, cloud = stack
    before = local.completions() + cloud.completions()
    reply = post(proxy, **limits)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["param"] == field
    assert error["message"] == message
    assert error["code"] == code
    assert local.completions() + cloud.completions() == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("messages", {"messages": HI, "max_tokens": 10}, "max_tokens"),
        ("responses", {"input": "hi", "max_output_tokens": 10}, "max_output_tokens"),
    ],
)
def test_an_agent_api_is_checked_by_its_own_limit_not_a_stray_chat_one(
    stack: tuple[RunningRouter, Running, Running], path: str, body: dict[str, Any], field: str
) -> None:
    """A Messages body with a stray `max_completion_tokens` (a Responses one with a stray
    `max_tokens`), which that API does not use and the translation never forwards, was
    refused as over every window (found in review); its own limit still decides."""
    proxy, _, _ = stack
    stray = "max_tokens" if path == "responses" else "max_completion_tokens"
    ask = {"model": "auto", **body}
    reply = httpx.post(f"{proxy.url}/{path}", json={**ask, stray: 500}, timeout=30)
    assert reply.status_code == 200, reply.text
    reply = httpx.post(f"{proxy.url}/{path}", json={**ask, field: 500, stray: 10}, timeout=30)
    assert reply.status_code == 400, reply.text
    assert f"lower {field}." in reply.json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "body", "stray"),
    [
        ("messages", {"max_tokens": 10, "messages": HI}, "max_completion_tokens"),
        ("responses", {"max_output_tokens": 10, "input": "hi"}, "max_tokens"),
        ("completions", {"max_tokens": 10, "prompt": "hi"}, "max_completion_tokens"),
    ],
    ids=["messages", "responses", "completions"],
)
def test_a_stray_chat_limit_is_not_checked_on_an_api_that_does_not_read_it(
    stack: tuple[RunningRouter, Running, Running], path: str, body: dict[str, Any], stray: str
) -> None:
    """Checked for every API, a field the router neither reads nor translates there got a
    400 of its own (`max_tokens: 0` beside a Responses `max_output_tokens`, found in
    re-review)."""
    proxy, _, _ = stack
    reply = httpx.post(f"{proxy.url}/{path}", json={"model": "auto", **body, stray: 0}, timeout=30)
    assert reply.status_code == 200, reply.text


@pytest.mark.parametrize(
    ("path", "body", "prompt", "limit"),
    [
        (
            "chat/completions",
            {"messages": [{"role": "user", "content": "word " * 400}]},
            "messages",
            "max_tokens",
        ),
        ("responses", {"input": "word " * 400}, "input", "max_output_tokens"),
        ("completions", {"prompt": "word " * 400}, "prompt", "max_tokens"),
    ],
    ids=["chat", "responses", "completions"],
)
def test_a_prompt_over_every_window_is_named_as_its_api_names_it(
    stack: tuple[RunningRouter, Running, Running],
    path: str,
    body: dict[str, Any],
    prompt: str,
    limit: str,
) -> None:
    """A Responses client was told its `messages` were too long and to lower `max_tokens`,
    fields it never sent (found in re-review)."""
    proxy, _, _ = stack
    reply = httpx.post(f"{proxy.url}/{path}", json={"model": "auto", **body}, timeout=30)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert (error["code"], error["param"]) == ("context_length_exceeded", prompt)
    assert error["message"].endswith("shorten the prompt.")  # no limit sent: none to lower


def test_a_messages_prompt_over_every_window_says_so_in_anthropics_envelope(
    stack: tuple[RunningRouter, Running, Running],
) -> None:
    long = [{"role": "user", "content": "word " * 400}]
    body = {"model": "auto", "max_tokens": 10, "messages": long}
    reply = httpx.post(f"{proxy_url(stack)}/messages", json=body, timeout=30)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["message"].endswith("shorten the prompt.")


def proxy_url(stack: tuple[RunningRouter, Running, Running]) -> str:
    return stack[0].url


def test_every_api_has_its_prompt_and_limit_fields() -> None:
    """A fifth API missing from either table would be a KeyError, a 500, on a refusal."""
    assert set(PROMPT_FIELDS) == set(OUTPUT_LIMITS) == set(get_args(Api))
