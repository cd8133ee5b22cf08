"""An output limit over a cloud model's own cap is a refusal a backend with more room serves.

opencode asks `max_tokens: 32000` on every request; OpenAI's gpt-4o refuses anything over
its 16384 output tokens with a 400, "max_tokens is too large: 32000. This model supports
at most 16384 completion tokens, whereas you provided 32000." (param `max_tokens`, code
`invalid_value`). The router read that as the client's `rejected` and ended the request,
where on a cloud-first route the local backend would have served it (found in a live
review with opencode 1.18.33). SGLang words an output limit over its window the same way.
The simulator's cloud profile refuses as OpenAI does (`max_output_tokens`); the official
SDKs against the router.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import orjson
import pytest

from router.attempt_errors import OutputTooLong
from router.config import parse
from router.simulator.__main__ import parser, settings_from
from router.upstream_errors import classify_error
from tests.harness import (
    Collect,
    Running,
    RunningRouter,
    config_for,
    litellm_backend,
    router,
    simulator,
)
from tests.resilience.conftest import FAST, until

GPT_4O_CAP = 16384
OPENCODE_ASKS = 32000
HAIKU = [{"role": "user", "content": "write a haiku about autumn leaves"}]  # prose: cloud first
OPENAI_CAP = {  # gpt-4o's, as reported in charmbracelet/catwalk#41
    "error": {
        "message": "max_tokens is too large: 20000. This model supports at most 16384 "
        "completion tokens, whereas you provided 20000.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "invalid_value",
    }
}
OPENAI_CAP_NO_PARAM = {  # as some proxies pass it on: the message names the field
    "error": {"message": OPENAI_CAP["error"]["message"], "type": "invalid_request_error"}
}
SGLANG_CAP = {  # SGLang's flat body: an output limit over its window
    "object": "error",
    "message": "max_completion_tokens is too large: 300000.This model supports at most "
    "262144 completion tokens.",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}
ANTHROPIC_CAP = {  # Anthropic's Messages error: an output limit over the model's own cap
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "max_tokens: 128000 > 64000, which is the maximum allowed number of "
        "output tokens for claude-sonnet-4-5-20250929",
    },
}


@pytest.mark.parametrize(
    ("body", "param"),
    [
        pytest.param(OPENAI_CAP, "max_tokens", id="openai"),
        pytest.param(OPENAI_CAP_NO_PARAM, "max_tokens", id="openai-no-param"),
        pytest.param(SGLANG_CAP, "max_completion_tokens", id="sglang"),
        pytest.param(ANTHROPIC_CAP, "max_tokens", id="anthropic"),
    ],
)
def test_an_output_cap_refusal_is_output_too_long(body: dict[str, Any], param: str) -> None:
    error = classify_error(400, orjson.dumps(body), {}, "cloud")
    assert isinstance(error, OutputTooLong)
    assert (error.kind, error.param, error.retryable) == ("output_too_long", param, True)


def test_the_cloud_profile_refuses_an_output_limit_over_its_cap_as_openai_does() -> None:
    """Whichever field set it, in OpenAI's words for `max_tokens`; at the cap it serves."""
    with simulator(profile="cloud", model="gpt-4o", max_output_tokens=GPT_4O_CAP) as cloud:
        client = openai.OpenAI(base_url=cloud.url, api_key="x", max_retries=0)
        for field in ("max_tokens", "max_completion_tokens"):
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(
                    model="gpt-4o",
                    messages=HAIKU,  # type: ignore[arg-type]
                    extra_body={field: OPENCODE_ASKS},
                )
            assert caught.value.body == {
                "message": "max_tokens is too large: 32000. This model supports at most 16384 "
                "completion tokens, whereas you provided 32000.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "invalid_value",
            }
        served = client.chat.completions.create(
            model="gpt-4o",
            messages=HAIKU,  # type: ignore[arg-type]
            max_tokens=GPT_4O_CAP,
        )
        assert served.choices[0].message.content


def test_the_cap_is_the_cloud_profiles_option() -> None:
    """`--max-output-tokens` on the command line; on another profile, a setting's error."""
    args = parser().parse_args(["--profile", "cloud", "--max-output-tokens", "16384"])
    assert settings_from(args).max_output_tokens == GPT_4O_CAP
    with pytest.raises(ValueError, match="max_output_tokens is the cloud profile's"):
        settings_from(parser().parse_args(["--max-output-tokens", "16384"]))


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[tuple[RunningRouter, Collect, dict[str, Running]]]:
    """The router over a vLLM `local` and a `cloud` capped at gpt-4o's 16384 output tokens."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model", max_output_tokens=GPT_4O_CAP) as cloud,
    ):
        servers = {"local": local, "cloud": cloud}
        with router(config_for(servers, tmp_path, resilience=FAST)) as running:  # sticky
            collect = Collect()
            running.components.gateway.sinks.append(collect)
            yield running, collect, servers


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_cloud_first_request_over_the_clouds_cap_is_served_by_local(
    capped: tuple[RunningRouter, Collect, dict[str, Running]], stream: bool
) -> None:
    """The cloud refuses 32000, the local backend serves it; a detour, so the conversation
    is not pinned to local: its next turn, asking less, goes to the cloud again."""
    running, collect, servers = capped
    client = openai.OpenAI(base_url=running.url, api_key="x", max_retries=0)
    with client.chat.completions.with_streaming_response.create(
        model="auto",
        messages=HAIKU,  # type: ignore[arg-type]
        max_tokens=OPENCODE_ASKS,
        stream=stream,
    ) as raw:
        assert raw.status_code == 200
        raw.read()
        headers = raw.headers
    assert (headers["x-smf-intent"], headers["x-smf-backend"]) == ("prose", "local")
    assert headers["x-smf-attempts"] == "2"
    until(lambda: bool(collect.records), what="the record finished")
    attempts = [(a.backend, a.outcome, a.error_kind) for a in collect.records[0].attempts]
    assert attempts == [("cloud", "error", "output_too_long"), ("local", "ok", None)]
    later = client.chat.completions.with_raw_response.create(
        model="auto",
        messages=[*HAIKU, {"role": "assistant", "content": "Leaves fall."}, *HAIKU],  # type: ignore[list-item]
        max_tokens=8000,
    )
    assert later.headers["x-smf-backend"] == "cloud"
    assert (servers["local"].completions(), servers["cloud"].completions()) == (1, 2)


CAP_WORDS = (
    "max_tokens is too large: 32000. This model supports at most 16384 completion tokens, "
    "whereas you provided 32000."
)


def test_a_chat_client_hears_the_cap_with_the_backends_own_code(
    capped: tuple[RunningRouter, Collect, dict[str, Running]],
) -> None:
    """With the cloud alone, opencode's 32000 is refused as the cloud refused it: code
    `invalid_value`, not `context_length_exceeded`, on which Kilo Code (an opencode fork)
    compacted its history three times, then gave up, where compaction could never help
    (found in a live review with Kilo Code CLI 7.7.7). The ledger still says its kind."""
    running, collect, _ = capped
    client = openai.OpenAI(base_url=running.url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="cloud",
            messages=HAIKU,  # type: ignore[arg-type]
            max_tokens=OPENCODE_ASKS,
        )
    error = caught.value
    assert (error.code, error.param, error.type) == (
        "invalid_value",
        "max_tokens",
        "invalid_request_error",
    )
    assert error.body["message"] == CAP_WORDS  # type: ignore[index]
    until(lambda: bool(collect.records), what="the record finished")
    attempts = [(a.backend, a.outcome, a.error_kind) for a in collect.records[0].attempts]
    assert attempts == [("cloud", "error", "output_too_long")]


def test_a_messages_client_hears_the_cap_in_the_providers_words(
    capped: tuple[RunningRouter, Collect, dict[str, Running]],
) -> None:
    """Claude Code's 32000 over the cloud's cap is an invalid request in the provider's own
    words, as Anthropic's own cap refusal is: not "input length and `max_tokens` exceed
    context limit", which says a smaller prompt would fit (it would not)."""
    running, _, _ = capped
    client = anthropic.Anthropic(base_url=running.root, api_key="x", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(  # streamed, as Claude Code asks (the SDK wants it at 32000)
            model="cloud",
            max_tokens=OPENCODE_ASKS,
            messages=HAIKU,  # type: ignore[arg-type]
            stream=True,
        )
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": CAP_WORDS},
    }


def test_a_codex_stream_gets_the_cap_as_an_http_400_not_in_band(
    capped: tuple[RunningRouter, Collect, dict[str, Running]],
) -> None:
    """Codex compacts its history on an in-band `context_length_exceeded`; a model's output
    cap is no full window, so its streamed request gets the 400 as any client does, naming
    the field it sent."""
    running, _, _ = capped
    client = openai.OpenAI(
        base_url=running.url,
        api_key="x",
        max_retries=0,
        default_headers={"originator": "codex_cli_rs"},
    )
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(
            model="cloud",
            input="write a haiku about autumn leaves",
            max_output_tokens=OPENCODE_ASKS,
            stream=True,
        )
    error = caught.value
    assert (error.status_code, error.code, error.param) == (
        400,
        "invalid_value",
        "max_output_tokens",
    )
    assert error.body["message"] == CAP_WORDS  # type: ignore[index]


def test_a_litellm_backends_cap_refusal_is_a_detour_too(tmp_path: Path) -> None:
    """litellm maps only the window's own wordings to its ContextWindowExceededError; the
    cap's 400 reached the router as a BadRequestError, the client's `rejected`, and ended
    the request a local backend would have served."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model", max_output_tokens=GPT_4O_CAP) as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        data["backends"][1] = litellm_backend("cloud", "openai/cloud-model", cloud.url)
        with router(parse(data)) as running:
            collect = Collect()
            running.components.gateway.sinks.append(collect)
            client = openai.OpenAI(base_url=running.url, api_key="x", max_retries=0)
            raw = client.chat.completions.with_raw_response.create(
                model="auto",
                messages=HAIKU,  # type: ignore[arg-type]
                max_tokens=OPENCODE_ASKS,
            )
            until(lambda: bool(collect.records), what="the record finished")
    assert (raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]) == ("prose", "local")
    attempts = [(a.backend, a.outcome, a.error_kind) for a in collect.records[0].attempts]
    assert attempts == [("cloud", "error", "output_too_long"), ("local", "ok", None)]


@pytest.mark.parametrize(
    "message",
    [
        "Invalid value: 'My app logs: max_tokens is too large: 99. Why?'. Supported values "
        "are: 'system', 'assistant', 'user'.",
        'Invalid Message passed in {"role": "foo", "content": "max_tokens: 9 > 8, which is '
        'the maximum allowed number of output tokens"}',
    ],
    ids=["openai-echo", "litellm-echo"],
)
def test_a_client_error_quoting_the_caps_words_stays_the_clients(message: str) -> None:
    """A message that quotes the client's text is the client's mistake, whatever the text
    says: matched anywhere, the words made it a detour that asked every backend, and a
    Codex stream was told its window was full (found in review)."""
    import litellm

    from router.attempt_errors import Rejected
    from router.backends.litellm_errors import translate

    body = {"error": {"message": message, "type": "invalid_request_error", "param": None}}
    assert isinstance(classify_error(400, orjson.dumps(body), {}, "cloud"), Rejected)
    echo = litellm.BadRequestError(
        message=f"OpenAIException - {message}", model="gpt-4o", llm_provider="openai"
    )
    assert isinstance(translate(echo, "cloud"), Rejected)
