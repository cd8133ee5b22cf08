"""Streams of several choices and a litellm backend: its own module, since a second
in-process router beside another module's would leave litellm's logging worker pending.

litellm's stream passes on one finish reason, from whichever choice sent one, labelled choice
0: through it no choice of an `n: 2` stream could be told finished from cut (a dropped
connection mid choice 0 reached the client as `stop`, recorded ok; checking every choice made
every such stream an error instead: both found in review). Such a request skips litellm
backends: another backend serves it, or the client hears why."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from router.config import parse
from tests.harness import (
    INTENTS,
    Running,
    RunningRouter,
    claude_backend,
    local_backend,
    openai_via_litellm,
    router,
    sdk,
    simulator,
)

ASK = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def anthropic() -> Iterator[Running]:
    """Behind the `claude` backend: litellm drops Anthropic's `n` (it takes none)."""
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as server:
        yield server


@pytest.fixture(scope="module")
def setup(
    anthropic: Running, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Running, Running, RunningRouter]]:
    with (
        simulator(profile="cloud", model="m") as behind_litellm,
        simulator(profile="vllm", model="local-model") as local,
    ):
        lite = openai_via_litellm("lite", behind_litellm.url, "m")
        config = parse(
            {
                "backends": [lite, local_backend(local), claude_backend(anthropic)],
                "routes": {intent: ["lite"] for intent in INTENTS}
                | {"coding": ["lite", "local"], "math": ["claude", "local"]},
                "ledger": {"path": str(tmp_path_factory.mktemp("choices") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield behind_litellm, local, proxy


def test_a_stream_of_two_choices_goes_past_a_litellm_backend(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    behind_litellm, local, proxy = setup
    client = sdk(proxy)
    served = local.completions()
    before = behind_litellm.completions()
    with client.chat.completions.with_streaming_response.create(
        model="coding",
        messages=ASK,
        stream=True,
        n=2,  # type: ignore[arg-type]
    ) as raw:
        backend = raw.headers["x-smf-backend"]
        finished = {c.index for chunk in raw.parse() for c in chunk.choices if c.finish_reason}
    assert (backend, finished, behind_litellm.completions()) == ("local", {0, 1}, before)
    assert local.completions() == served + 1


@pytest.mark.parametrize("n", [2, 2.0, "2"])  # a lax upstream reads 2.0 and "2" as 2
def test_a_stream_of_two_choices_only_litellm_could_serve_is_the_clients_400(
    setup: tuple[Running, Running, RunningRouter], n: object
) -> None:
    behind_litellm, _, proxy = setup
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
    before = behind_litellm.completions()
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="writing", messages=ASK, stream=True, n=n)  # type: ignore[arg-type]
    assert refused.value.param == "n"
    assert behind_litellm.completions() == before


def test_a_messages_stream_with_a_stray_n_still_goes_through_litellm(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    """The Messages translator drops `n`: litellm streams one choice (was a 400)."""
    _, _, proxy = setup
    ask = {"model": "writing", "messages": ASK, "max_tokens": 32, "stream": True, "n": 2}
    with httpx.stream("POST", f"{proxy.url}/messages", json=ask, timeout=30) as reply:
        assert (reply.status_code, reply.headers["x-smf-backend"]) == (200, "lite")
        reply.read()


def test_one_streamed_choice_or_two_whole_ones_still_go_through_litellm(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    _, _, proxy = setup
    client = sdk(proxy)
    whole = client.chat.completions.with_raw_response.create(model="writing", messages=ASK, n=2)  # type: ignore[arg-type]
    assert whole.headers["x-smf-backend"] == "lite" and len(whole.parse().choices) == 2
    with client.chat.completions.with_streaming_response.create(
        model="writing",
        messages=ASK,
        stream=True,  # type: ignore[arg-type]
    ) as one:
        assert one.headers["x-smf-backend"] == "lite"


def test_two_whole_choices_go_past_a_backend_whose_provider_answers_one(
    setup: tuple[Running, Running, RunningRouter], anthropic: Running
) -> None:
    """litellm drops the `n` of a provider that takes none (Anthropic): the client asked for
    two choices and got one, with a 200 (found in review). Such a backend is skipped."""
    _, _, proxy = setup
    before = anthropic.completions("/v1/messages")
    whole = sdk(proxy).chat.completions.with_raw_response.create(
        model="math",
        messages=ASK,
        n=2,  # type: ignore[arg-type]
    )
    assert whole.headers["x-smf-backend"] == "local" and len(whole.parse().choices) == 2
    assert anthropic.completions("/v1/messages") == before


def test_two_whole_choices_only_such_a_backend_could_serve_are_the_clients_400(
    setup: tuple[Running, Running, RunningRouter], anthropic: Running
) -> None:
    _, _, proxy = setup
    before = anthropic.completions("/v1/messages")
    with pytest.raises(openai.BadRequestError) as refused:
        sdk(proxy).chat.completions.create(model="claude", messages=ASK, n=2)  # type: ignore[arg-type]
    assert refused.value.param == "n" and "several choices" in refused.value.message
    assert anthropic.completions("/v1/messages") == before
    one = sdk(proxy).chat.completions.with_raw_response.create(model="claude", messages=ASK)
    assert one.headers["x-smf-backend"] == "claude"  # one choice it serves


@pytest.mark.parametrize(
    ("n", "code"),
    [("1", "invalid_type"), (1.0, "invalid_type"), (0, "integer_below_min_value")],
)
def test_an_n_that_is_no_count_of_choices_is_refused_as_openai_does(
    setup: tuple[Running, Running, RunningRouter], n: object, code: str
) -> None:
    """All three were "several", a 400 saying claude serves one choice where only claude
    serves (found in review), then were served; an `n` that is no integer from 1 to 128 is
    now refused before any backend, in OpenAI's words (`router.request`)."""
    _, _, proxy = setup
    ask = {"model": "claude", "messages": ASK, "max_tokens": 16, "n": n}
    reply = httpx.post(f"{proxy.url}/chat/completions", json=ask, timeout=30)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert (error["param"], error["code"]) == ("n", code)
    assert "several choices" not in error["message"]
    one = httpx.post(f"{proxy.url}/chat/completions", json=ask | {"n": 1}, timeout=30)
    assert (one.status_code, one.headers.get("x-smf-backend")) == (200, "claude"), one.text


def test_whether_a_provider_takes_n_is_litellms_word() -> None:
    from router.backends.litellm import _one_choice_only, import_litellm
    from router.config import Backend

    litellm = import_litellm()
    for model, one in [("anthropic/claude-sonnet-4-5", True), ("openai/m", False)]:
        settings = Backend(name="b", tier="cloud", kind="litellm", model=model)
        assert _one_choice_only(litellm, settings) is one


def test_a_claude_backend_gets_the_temperature_alone_when_a_client_sends_both(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    """Claude 4.5 on refuses `temperature` with `top_p` (a 400 the client could do nothing
    about: many agents send both); the router keeps the temperature for a Claude model.
    Another litellm backend still gets both."""
    _, _, proxy = setup
    client = sdk(proxy)
    raw = client.chat.completions.with_raw_response.create(
        model="math", messages=ASK, temperature=0.2, top_p=0.9, max_tokens=5
    )
    assert (raw.http_response.status_code, raw.headers["x-smf-backend"]) == (200, "claude")
    assert raw.parse().choices[0].message.content
