"""Context windows: a prompt no backend can hold is the client's 400, not a retryable 503;
a window one backend refuses (prompt or output limit) sends the request to a larger one."""

from __future__ import annotations

from pathlib import Path

import anthropic
import openai
import orjson
import pytest

from router.attempt_errors import ContextTooLong
from router.config import parse
from router.upstream_errors import classify_error
from tests.harness import Running, config_for, router, scrape, sdk, simulator
from tests.router.context_windows import windowed


def test_prompt_over_every_window_is_a_400_the_sdk_does_not_retry(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(windowed(local, cloud, tmp_path, (100, 200))) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
            long = [{"role": "user", "content": "word " * 400}]
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(model="auto", messages=long)  # type: ignore[arg-type]
            assert caught.value.code == "context_length_exceeded"
            assert caught.value.param == "messages"
            with pytest.raises(
                openai.BadRequestError
            ) as caught:  # the output's room, not the prompt
                client.chat.completions.create(
                    model="auto", messages=[{"role": "user", "content": "hi"}], max_tokens=500
                )
            assert (caught.value.code, caught.value.param) == (
                "context_length_exceeded",
                "max_tokens",
            )
            refused = [  # was kind `other` on the errors panel
                value
                for (name, labels), value in scrape(proxy.root).samples.items()
                if name == "smf_router_errors_total"
                and {("outcome", "client_error"), ("kind", "context_length_exceeded")} <= labels
            ]
            assert sum(refused) == 2
            # a prompt that fits the larger window goes there, skipping the small one
            medium = [{"role": "user", "content": "Write a Python function. " + "x " * 250}]
            raw = client.chat.completions.with_raw_response.create(model="coding", messages=medium)  # type: ignore[arg-type]
            assert raw.headers["x-smf-backend"] == "cloud"
        assert local.completions() == 0 and cloud.completions() == 1


def test_an_output_limit_over_every_window_names_the_field_the_client_sent(
    tmp_path: Path,
) -> None:
    """The 400 said `max_tokens` whatever the client had set, and `max_tokens: null` beside
    `max_completion_tokens` left the window unchecked (found in review)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(windowed(local, cloud, tmp_path, (100, 200))) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            with pytest.raises(openai.BadRequestError) as caught:
                client.responses.create(model="auto", input="hi", max_output_tokens=500)
            assert caught.value.param == "max_output_tokens"
            assert "lower max_output_tokens" in caught.value.message
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(
                    model="auto",
                    messages=[{"role": "user", "content": "hi"}],
                    extra_body={"max_tokens": None, "max_completion_tokens": 500},
                )
            assert caught.value.param == "max_completion_tokens"
        assert local.completions() == 0 and cloud.completions() == 0


def test_a_private_prompt_over_the_local_window_is_a_400_the_sdk_does_not_retry(
    tmp_path: Path,
) -> None:
    """Local skipped for its window and cloud because the request is private: both are
    permanent, yet the answer was a retryable 503 (found in review)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(windowed(local, cloud, tmp_path, (100, 10_000))) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
            long = [{"role": "user", "content": "word " * 400}]
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(
                    model="auto",
                    messages=long,  # type: ignore[arg-type]
                    extra_headers={"x-smf-private": "true"},
                )
            assert caught.value.code == "context_length_exceeded"
            assert "private" in caught.value.message
        assert local.completions() == 0 and cloud.completions() == 0


def test_one_backend_without_the_api_and_one_without_the_window_is_a_window_400(
    tmp_path: Path,
) -> None:
    """One local backend does not speak completions, the other's window is too small: the
    answer blamed the API (code None), so a client that shortens on context_length_exceeded
    did not, though shortening lets the second serve it (found in review)."""
    with (
        simulator(profile="vllm", model="local-model") as chat_only,
        simulator(profile="vllm", model="local-model") as small,
    ):
        data = config_for({"local_chat": chat_only, "local_small": small}, tmp_path)
        data = data.model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat"]
        data["backends"][1]["context_window"] = 100
        with router(parse(data)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
            with pytest.raises(openai.BadRequestError) as caught:
                client.completions.create(model="coding", prompt="word " * 400)
        assert caught.value.code == "context_length_exceeded"
        assert chat_only.completions() == 0 and small.completions() == 0


def test_tool_call_arguments_count_toward_the_window(tmp_path: Path) -> None:
    """An agent's tool loop: the assistant turns have no content, only tool calls whose
    arguments (here a whole file) fill the window. The estimate must see them."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "write_file", "arguments": '{"text": "%s"}' % ("x " * 1000)},
        }
        messages = [
            {"role": "user", "content": "Write the parser module."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "written"},
        ]
        with router(windowed(local, cloud, tmp_path, (300, 10_000))) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            raw = client.chat.completions.with_raw_response.create(
                model="coding",
                messages=messages,  # type: ignore[arg-type]
                max_tokens=10,
            )
            assert raw.headers["x-smf-backend"] == "cloud"
        assert local.completions() == 0 and cloud.completions() == 1


def test_legacy_function_schemas_count_toward_the_window_as_tools_do() -> None:
    """The deprecated `functions` field was left out of the estimate: a 40k-character
    schema counted 5 tokens there and 10,028 as `tools` (found in review)."""
    from router.request_size import estimate_prompt_tokens

    schema = {"name": "lookup", "description": "d " * 20_000, "parameters": {"type": "object"}}
    body = {"messages": [{"role": "user", "content": "Look it up."}]}
    legacy = estimate_prompt_tokens("chat", {**body, "functions": [schema]})
    tools = estimate_prompt_tokens(
        "chat", {**body, "tools": [{"type": "function", "function": schema}]}
    )
    assert legacy > 10_000 and abs(legacy - tools) < 50


OVER_THE_WINDOW = 32000  # Claude Code's usual max_tokens; the local vLLM's window is 512
ASKS: dict[str, tuple[str, str]] = {  # api -> (path on the local backend, field it names)
    "chat": ("/v1/chat/completions", "max_tokens"),
    "chat_max_completion_tokens": ("/v1/chat/completions", "max_completion_tokens"),
    "responses": ("/v1/responses", "max_output_tokens"),
    "messages": ("/v1/messages", "max_completion_tokens"),
}


def ask_over_the_window(api: str, proxy: Running) -> str:
    """One request through the official SDK whose output limit no 512-token window allows;
    returns the backend that served it."""
    ask = "Write a Python function that adds two numbers."
    if api == "messages":
        claude = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
        with claude.messages.stream(  # the SDK streams a limit this large, as Claude Code does
            model="coding",
            max_tokens=OVER_THE_WINDOW,
            messages=[{"role": "user", "content": ask}],
        ) as stream:
            assert stream.get_final_text()
            return stream.response.headers["x-smf-backend"]
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    if api == "responses":
        raw = client.responses.with_raw_response.create(
            model="coding", input=ask, max_output_tokens=OVER_THE_WINDOW
        )
        return raw.headers["x-smf-backend"]
    limit = "max_tokens" if api == "chat" else "max_completion_tokens"
    raw = client.chat.completions.with_raw_response.create(
        model="coding",
        messages=[{"role": "user", "content": ask}],
        **{limit: OVER_THE_WINDOW},  # type: ignore[arg-type]
    )
    return raw.headers["x-smf-backend"]


@pytest.mark.parametrize("api", sorted(ASKS))
def test_an_output_limit_over_the_local_window_falls_back_to_the_cloud(
    api: str, tmp_path: Path
) -> None:
    """vLLM refuses an output limit over its max_model_len however short the prompt; the
    router read that 400 as the client's mistake and passed it on, where the README promises
    a fallback on context-length errors (found in review). The local window is not configured
    here, as before the router has read it from `/v1/models`."""
    with (
        simulator(profile="vllm", model="local-model", max_model_len=512) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat", "responses", "messages"]  # vLLM serves them
        with router(parse(data)) as proxy:
            assert ask_over_the_window(api, proxy) == "cloud"
        path, _ = ASKS[api]
        assert local.completions(path) == 1  # tried natively, refused
        assert cloud.completions("/v1/chat/completions") == 1  # translated to chat there


def test_an_output_limit_local_refuses_does_not_skip_a_cloud_with_a_smaller_window(
    tmp_path: Path,
) -> None:
    """Local's configured window (262144) is larger than the one it serves (512), so the
    plan sends the turn there; its refusal of `max_tokens` skipped every later backend with
    a window up to the configured one: a 400 the cloud could have served (found in review).
    A refused output limit says nothing of the windows."""
    with (
        simulator(profile="vllm", model="local-model", max_model_len=512) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = windowed(local, cloud, tmp_path, (262144, 200000))
        with router(config) as proxy:
            raw = sdk(proxy).chat.completions.with_raw_response.create(
                model="coding", messages=[{"role": "user", "content": "Hi"}], max_tokens=600
            )
            assert (raw.headers["x-smf-backend"], raw.headers["x-smf-attempts"]) == ("cloud", "2")
        assert (local.completions(), cloud.completions()) == (1, 1)


def test_an_output_limit_no_backend_allows_is_a_context_error_naming_the_field(
    tmp_path: Path,
) -> None:
    """With no fallback the client hears `context_length_exceeded` with vLLM's own words,
    naming the field it set, and the SDK is told not to retry."""
    with simulator(profile="vllm", model="local-model", max_model_len=512) as local:
        with router(config_for({"local": local}, tmp_path)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(
                    model="local",
                    messages=[{"role": "user", "content": "Hi"}],
                    max_completion_tokens=OVER_THE_WINDOW,
                )
        assert local.completions() == 1  # one attempt: no SDK retries
    error = caught.value
    assert (error.code, error.param) == ("context_length_exceeded", "max_completion_tokens")
    assert "max_completion_tokens=32000 cannot be greater than max_model_len=512" in error.message
    assert error.response.headers["x-should-retry"] == "false"


@pytest.mark.parametrize(
    ("message", "param", "named"),
    [
        (  # vLLM 0.32, as the simulator says it (above)
            "max_tokens=600 cannot be greater than max_model_len=512. Please request fewer "
            "output tokens. (parameter=max_tokens, value=600)",
            "max_tokens",
            "max_tokens",
        ),
        (  # earlier builds, whose message names both limits
            "max_tokens=8192 cannot be greater than max_model_len=max_total_tokens=4096. "
            "Please request fewer output tokens.",
            None,
            "max_tokens",  # no param: the message names the limit
        ),
        (  # earlier versions: prompt plus output over the window
            "You passed 31745 input tokens and requested 1024 output tokens. However, the "
            "model's context length is only 32768 tokens, resulting in a maximum input length "
            "of 31744 tokens. Please reduce the length of the input prompt. "
            "(parameter=input_tokens, value=31745)",
            "input_tokens",
            "messages",
        ),
    ],
)
def test_every_vllm_wording_of_a_window_refusal_is_a_context_error(
    message: str, param: str | None, named: str
) -> None:
    """The simulator speaks 0.32 only; the wordings of the vLLM versions still deployed are
    checked where they are read."""
    body = {"error": {"message": message, "type": "BadRequestError", "param": param, "code": 400}}
    error = classify_error(400, orjson.dumps(body), {}, "local")
    assert isinstance(error, ContextTooLong)
    assert error.param == named
    # the output limit named: this request's choice, no reason for its session to leave
    assert error.kind == ("output_too_long" if named == "max_tokens" else "context_too_long")
    other = {"error": {"message": "temperature must be non-negative, got -1.0.", "code": 400}}
    assert not isinstance(classify_error(400, orjson.dumps(other), {}, "local"), ContextTooLong)
