"""A scoring request (a completions request for its prompt's log probabilities: `echo` with
`logprobs`, or vLLM's `prompt_logprobs`) reads as nothing and takes the default route, and
so every choice of every question lm-eval scores goes to one backend (`router.scoring`).
Read one by one, "The capital of France is Paris" went local (instruction) and "... Berlin"
to the cloud (reasoning), and lm-eval compared two models' numbers (found running lm-eval
0.4.13). Token-id and batched prompts reach the backend as sent. The official `openai` SDK
against a router whose backends are the vLLM and cloud simulators."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from pydantic import TypeAdapter, ValidationError

from router.scoring import echo_asked
from tests.harness import INSTRUCT, Running, RunningRouter

QUESTIONS = {  # lm-eval's prompts for one multiple-choice task, as captured in review
    "The capital of France is": ["Paris", "Berlin", "Rome"],
    "2 + 2 equals": ["3", "4", "5"],
    "Water freezes at": ["0 degrees C", "50 degrees C", "100 degrees C"],
}
SCORING: dict[str, Any] = {"max_tokens": 1, "logprobs": 1, "echo": True, "temperature": 0}


@pytest.fixture(scope="module")
def cloud_model() -> str:
    """`conftest.py`'s stack, but the cloud on OpenAI's completions model: the cloud
    simulator plays OpenAI, whose chat models refuse `/v1/completions`."""
    return INSTRUCT


@pytest.fixture
def stack(proxy: RunningRouter, backends: dict[str, Running]) -> tuple[RunningRouter, Running]:
    """The router over the vLLM and cloud simulators (`conftest.py`), and the vLLM one."""
    return proxy, backends["local"]


def _sdk(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)


def _decided(raw: Any) -> tuple[str, str, str]:
    return raw.headers["x-smf-intent"], raw.headers["x-smf-route"], raw.headers["x-smf-backend"]


def test_every_choice_of_every_question_goes_to_one_backend(
    stack: tuple[RunningRouter, Running],
) -> None:
    proxy, _ = stack
    sdk = _sdk(proxy)
    decided = set()
    for question, choices in QUESTIONS.items():
        for choice in choices:
            prompt = f"{question} {choice}"
            raw = sdk.completions.with_raw_response.create(
                model="auto", prompt=prompt, seed=1234, **SCORING
            )
            decided.add(_decided(raw))
            (answer,) = raw.parse().choices
            assert answer.logprobs is not None and answer.text.startswith(prompt)
    assert decided == {("unknown", "coding", "local")}  # the default route, nothing read


def test_a_batch_of_choices_is_one_scoring_request(stack: tuple[RunningRouter, Running]) -> None:
    """lm-eval's `batch_size` above 1: the choices of several questions in one request (its
    captured body), a choice back for each prompt."""
    proxy, local = stack
    prompts = [
        "The capital of France is Berlin",
        "Water freezes at 100 degrees C",
        "The capital of France is Rome",
        "Water freezes at 50 degrees C",
    ]
    raw = _sdk(proxy).completions.with_raw_response.create(
        model="auto", prompt=prompts, seed=1234, **SCORING
    )
    assert _decided(raw) == ("unknown", "coding", "local")
    done = raw.parse()
    assert [c.text[: len(p)] for c, p in zip(done.choices, prompts, strict=True)] == prompts
    assert local.stats()["last_request"]["prompt"] == prompts


def test_vllms_prompt_logprobs_is_a_scoring_request(stack: tuple[RunningRouter, Running]) -> None:
    proxy, local = stack
    raw = _sdk(proxy).completions.with_raw_response.create(
        model="auto",
        prompt="Compute 17 * 23.",
        max_tokens=1,
        extra_body={"prompt_logprobs": 1},
    )
    assert _decided(raw) == ("unknown", "coding", "local")
    assert local.stats()["last_request"]["prompt_logprobs"] == 1


@pytest.mark.parametrize(
    ("asked", "decided"),
    [
        ({"echo": True}, ("math", "math", "cloud")),  # the prompt shown before what is written
        ({"logprobs": 1}, ("math", "math", "cloud")),  # the written tokens' numbers
        ({"echo": True, "logprobs": 1}, ("unknown", "coding", "local")),
    ],
)
def test_echo_or_logprobs_alone_is_generation_and_classified(
    stack: tuple[RunningRouter, Running], asked: dict[str, Any], decided: tuple[str, str, str]
) -> None:
    proxy, _ = stack
    raw = _sdk(proxy).completions.with_raw_response.create(
        model="auto", prompt="Compute 17 * 23.", max_tokens=2, **asked
    )
    assert _decided(raw) == decided


def test_explain_says_a_scoring_request_read_nothing(stack: tuple[RunningRouter, Running]) -> None:
    proxy, _ = stack
    body = {"api": "completions", "model": "auto", "prompt": "Compute 17 * 23.", **SCORING}
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json=body, timeout=30).json()
    assert (reply["route_reason"], reply["route"]) == ("nothing_read", "coding")
    assert reply["intent"] == {"label": "unknown", "confidence": 0.0, "source": "default"}


@pytest.mark.parametrize(
    "prompt", [[297, 12, 55], [[297, 12, 55]], [[297, 12, 55], [40, 41]], ["a b", "c d e"]]
)
@pytest.mark.parametrize("model", ["auto", "local", "cloud"])
def test_token_ids_and_batches_reach_the_backend_as_sent(
    stack: tuple[RunningRouter, Running], backends: dict[str, Running], prompt: Any, model: str
) -> None:
    """Token ids are nothing the classifier reads (intent `unknown`, the default route);
    each backend gets the prompt unchanged and answers a choice per prompt. The vLLM
    simulator refused ids ("Input should be a valid string"), which vLLM serves."""
    proxy, _ = stack
    raw = _sdk(proxy).completions.with_raw_response.create(model=model, prompt=prompt, max_tokens=2)
    backend, ids = raw.headers["x-smf-backend"], isinstance(prompt[0], int | list)
    if model != "auto":
        assert backend == model
    elif ids:  # no text: the default route
        assert (raw.headers["x-smf-intent"], backend) == ("unknown", "local")
    batch = prompt if isinstance(prompt[0], list | str) else [prompt]
    assert [c.index for c in raw.parse().choices] == list(range(len(batch)))
    assert backends[backend].stats()["last_request"]["prompt"] == prompt


@pytest.mark.parametrize("echo", [1, 1.0, "true", "True", "1", "yes", "on"])
def test_echo_as_vllm_reads_it_makes_a_scoring_request(
    stack: tuple[RunningRouter, Running], echo: object
) -> None:
    """vLLM's request model reads `echo` as pydantic's lax bool: `1` and "true" are true, the
    request a scoring one there. Read as `true` alone, it was generation here, its text
    classified: a math prompt went to the cloud (found in review)."""
    proxy, _ = stack
    raw = _sdk(proxy).completions.with_raw_response.create(
        model="auto",
        prompt="Compute 17 * 23.",
        max_tokens=1,
        logprobs=1,
        extra_body={"echo": echo},
    )
    assert _decided(raw) == ("unknown", "coding", "local")
    assert raw.parse().choices[0].text.startswith("Compute 17 * 23.")  # echoed


@pytest.mark.parametrize("echo", [0, "false", "off", "maybe", 2])
def test_echo_vllm_reads_as_false_or_refuses_leaves_generation(
    stack: tuple[RunningRouter, Running], echo: object
) -> None:
    proxy, _ = stack
    body = {"api": "completions", "model": "auto", "prompt": "Compute 17 * 23.", "echo": echo}
    body |= {"logprobs": 1, "max_tokens": 1}
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json=body, timeout=30).json()
    assert (reply["intent"]["label"], reply["route"]) == ("math", "math")


def test_max_tokens_0_with_echo_1_is_the_prompt_alone(stack: tuple[RunningRouter, Running]) -> None:
    """`max_tokens: 0` with `echo` asks for the prompt's log probabilities alone, which vLLM
    serves; the router refused it as below 1 when `echo` was `1` (found in review)."""
    proxy, local = stack
    done = _sdk(proxy).completions.create(
        model="local",
        prompt="The capital of France is",
        max_tokens=0,
        logprobs=1,
        extra_body={"echo": 1},
    )
    (choice,) = done.choices
    assert (choice.text, choice.finish_reason) == ("The capital of France is", "length")
    assert local.stats()["last_request"]["echo"] == 1  # sent as the client sent it


VALUES = [
    True,
    False,
    None,
    1,
    0,
    2,
    -1,
    1.0,
    0.0,
    1.5,
    "true",
    "TRUE",
    "t",
    "y",
    "yes",
    "on",
    "1",
    "false",
    "off",
    "no",
    "0",
    "",
    " true",
    "1.0",
    "maybe",
    [],
    {},
]


@pytest.mark.parametrize("echo", VALUES)
def test_echo_is_read_as_pydantic_reads_a_bool(echo: object) -> None:
    """`echo_asked` against pydantic's lax mode itself, vLLM's reading of `echo: bool | None`;
    a value pydantic refuses is no echo (the backend's 400 says so)."""
    try:
        read = bool(TypeAdapter(bool | None).validate_python(echo))
    except ValidationError:
        read = False
    assert echo_asked({"echo": echo}) is read
