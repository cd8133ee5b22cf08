"""Context-length refusals in the words of the servers users put behind the router: each
is a `ContextTooLong` (a larger window may serve it), not the client's own 400. Only vLLM's
enveloped error and OpenAI's were read: SGLang's flat body, llama.cpp's, TGI's 422 and
Anthropic's prompt-plus-output wording were passed on as `Rejected`, so the request never
reached the cloud (found in review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import orjson
import pytest

from router.attempt_errors import ContextTooLong, Rejected, ServerError
from router.upstream_errors import classify_error, in_band
from tests.harness import config_for, router, simulator

SGLANG_INPUT = {  # SGLang (and vLLM before 0.10.1): the fields flat, no `error` envelope
    "object": "error",
    "message": "The input (43028 tokens) is longer than the model's context length (40960 tokens).",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}
SGLANG_TOTAL = SGLANG_INPUT | {  # prompt plus output over the window
    "message": "Requested token count exceeds the model's maximum context length of 65536 "
    "tokens. You requested a total of 67298 tokens: 50914 tokens from the input messages and "
    "16384 tokens for the completion. Please reduce the number of tokens in the input "
    "messages or the completion to fit within the limit."
}
VLLM_FLAT = SGLANG_INPUT | {  # vLLM before 0.10.1
    "message": "This model's maximum context length is 4096 tokens. However, you requested "
    "4596 tokens (4096 in the messages, 500 in the completion). Please reduce the length of "
    "the messages or completion."
}
LLAMA_CPP = {
    "error": {
        "code": 400,
        "message": "request (9412 tokens) exceeds the available context size (8192 tokens), "
        "try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 9412,
        "n_ctx": 8192,
    }
}
LLAMA_CPP_OLD = {  # earlier builds: no counts in the message
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
    }
}
TGI_TOTAL = {
    "error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. "
    "Given: 4000 `inputs` tokens and 500 `max_new_tokens`",
    "error_type": "validation",
}
TGI_INPUT = {
    "error": "Input validation error: `inputs` must have less than 4095 tokens. Given: 5000",
    "error_type": "validation",
}
ANTHROPIC_TOTAL = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 188240 + 21333 > "
        "200000, decrease input length or `max_tokens` and try again",
    },
}
ANTHROPIC_PROMPT = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 213462 tokens > 200000 maximum",
    },
}
OLLAMA = {
    "error": {
        "message": "prompt too long; exceeded max context length by 1200 tokens",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
}
LM_STUDIO = {  # its llama.cpp engine's n_keep check, as a bare string
    "error": "The number of tokens to keep from the initial prompt is greater than the "
    "context length (n_keep: 5228 >= n_ctx: 4096). Try to load the model with a larger "
    "context length, or provide a shorter input."
}


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(400, SGLANG_INPUT, id="sglang-input"),
        pytest.param(400, SGLANG_TOTAL, id="sglang-total"),
        pytest.param(400, VLLM_FLAT, id="vllm-before-0.10.1"),
        pytest.param(400, LLAMA_CPP, id="llama.cpp"),
        pytest.param(400, LLAMA_CPP_OLD, id="llama.cpp-old"),
        pytest.param(422, TGI_TOTAL, id="tgi-total"),
        pytest.param(422, TGI_INPUT, id="tgi-input"),
        pytest.param(400, ANTHROPIC_TOTAL, id="anthropic-total"),
        pytest.param(400, ANTHROPIC_PROMPT, id="anthropic-prompt"),
        pytest.param(400, OLLAMA, id="ollama"),
        pytest.param(400, LM_STUDIO, id="lm-studio"),
    ],
)
def test_each_servers_context_refusal_is_a_context_error_naming_the_prompt(
    status: int, body: dict[str, Any]
) -> None:
    """Prompt plus output over the window names the prompt, as vLLM's older "You passed N
    input tokens and requested M output tokens" always has: no output limit is named."""
    error = classify_error(status, orjson.dumps(body), {}, "local")
    assert isinstance(error, ContextTooLong)
    assert (error.kind, error.param, error.code) == (
        "context_too_long",
        "messages",
        "context_length_exceeded",
    )
    assert error.message in orjson.dumps(body).decode()  # the server's own words, passed on


LLAMA_CPP_OTHER = {
    "error": {
        "code": 400,
        "message": "tools param requires --jinja flag",
        "type": "invalid_request_error",
    }
}
TGI_TEMPERATURE = {
    "error": "Input validation error: `temperature` must be strictly positive",
    "error_type": "validation",
}
FASTAPI_ECHO = {  # FastAPI's 422 echoes the input, whatever the prompt says
    "detail": [
        {
            "type": "missing",
            "loc": ["body", "model"],
            "msg": "Field required",
            "input": {"prompt": "what is the maximum context length?"},
        }
    ]
}


ASKED_ABOUT_IT = "Why does it say: request (9000 tokens) exceeds the available context size?"
PYDANTIC_ECHO = (  # how vLLM, SGLang and FastAPI servers word a body failing validation
    "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'messages', 0, 'role'),"
    f" 'msg': 'Field required', 'input': {{'content': '{ASKED_ABOUT_IT}'}}}}"
)
SERDE_ECHO = (  # TGI's (axum's) text/plain 422 for a body of the wrong type
    "Failed to deserialize the JSON body into the target type: messages[0].content: invalid"
    ' type: string "the maximum context length is 8192", expected a sequence at line 1'
)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(400, SGLANG_INPUT | {"message": PYDANTIC_ECHO}, id="flat-validation-echo"),
        pytest.param(
            400,
            {"error": {"message": PYDANTIC_ECHO, "type": "BadRequestError", "code": 400}},
            id="vllm-validation-echo",
        ),
        pytest.param(422, {"error": {"message": SERDE_ECHO}}, id="serde-echo"),
        pytest.param(
            400,
            SGLANG_INPUT | {"message": "temperature must be non-negative, got -1.0."},
            id="sglang-temperature",
        ),
        pytest.param(400, LLAMA_CPP_OTHER, id="llama.cpp-other"),
        pytest.param(422, TGI_TEMPERATURE, id="tgi-temperature"),
        pytest.param(422, FASTAPI_ECHO, id="fastapi-echo"),
    ],
)
def test_other_refusals_of_the_same_servers_stay_the_clients_400(
    status: int, body: dict[str, Any]
) -> None:
    """A validation error quoting a prompt about context errors was a context error: the
    client's mistake fell back to the cloud (found in review)."""
    error = classify_error(status, orjson.dumps(body), {}, "local")
    assert isinstance(error, Rejected) and not isinstance(error, ContextTooLong)
    assert error.status == status


def test_tgis_streamed_context_refusal_is_a_context_error_by_its_words() -> None:
    """TGI validates a streamed request after its 200: `data: {"error": "<message>",
    "error_type": "validation"}`, no type or code inside the error to go by. It was a
    server error (the circuit's business); any other nameless in-band error still is."""
    error = in_band("chat", TGI_TOTAL["error"], "local")
    assert isinstance(error, ContextTooLong) and error.param == "messages"
    assert isinstance(in_band("chat", "Request failed during generation", "local"), ServerError)


SERVERS = ("context_length_sglang", "context_length_llamacpp", "context_length_tgi")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("fault", SERVERS)
def test_another_servers_context_refusal_falls_back_to_the_cloud(
    fault: str, stream: bool, tmp_path: Path
) -> None:
    """The local server refuses in its own words; the official SDK gets the cloud's answer,
    after two attempts, where it got the local server's 400 (or TGI's 422) before."""
    with (
        simulator(profile="vllm", model="local-model", fault=fault) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            ask = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
            with client.chat.completions.with_streaming_response.create(
                model="coding",
                messages=ask,  # type: ignore[arg-type]
                stream=stream,
            ) as raw:
                headers = raw.headers
                if stream:
                    assert [c for c in raw.parse() if c.choices and c.choices[0].finish_reason]
                else:
                    assert raw.parse().choices[0].message.content
            assert (headers["x-smf-backend"], headers["x-smf-attempts"]) == ("cloud", "2")
        assert (local.completions(), cloud.completions()) == (1, 1)


def test_with_no_larger_backend_sglangs_refusal_is_context_length_exceeded(
    tmp_path: Path,
) -> None:
    """Alone, the client hears `context_length_exceeded` (Codex compacts its history on it)
    with SGLang's words, and is told not to retry, where SGLang's 400 came as it was."""
    sglang = {"fault": "context_length_sglang", "max_model_len": 512}
    with simulator(profile="vllm", model="local-model", **sglang) as local:
        with router(config_for({"local": local}, tmp_path)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2)
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(
                    model="local", messages=[{"role": "user", "content": "Hi"}]
                )
        assert local.completions() == 1  # one attempt: no SDK retries
    error = caught.value
    assert (error.code, error.param) == ("context_length_exceeded", "messages")
    assert "is longer than the model's context length (512 tokens)" in error.message
    assert error.response.headers["x-should-retry"] == "false"
