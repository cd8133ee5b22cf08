"""vLLM reads `n` and `max_tokens` as pydantic's lax integers: `"2"`, `2.0` and `true` are
served (vLLM 0.32 served them where the simulator refused them, found in review against
the live server: tests/vllm/captures/chat_n_*.json), and what it cannot read as an integer it
refuses in pydantic's words. `n` below 1 is its sampling check's plain "n must be at least
1, got 0." (no `parameter`). OpenAI and Anthropic take integers alone. Over HTTP, against a
started simulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

HTTP = httpx.Client(trust_env=False, timeout=30)
ASK = [{"role": "user", "content": "Name a colour."}]
CHAT: Any = {"model": "tiny", "messages": ASK, "max_tokens": 1, "temperature": 1}
COMPLETIONS: Any = {"model": "tiny", "prompt": "Name a colour.", "max_tokens": 1}
MESSAGES: Any = {"model": "tiny", "messages": ASK, "max_tokens": 1}
FRACTION = "Input should be a valid integer, got a number with a fractional part"
UNPARSED = "Input should be a valid integer, unable to parse string as an integer"
TOO_BIG = "Unable to parse input string as an integer, exceeded maximum size"


def refusal(kind: str, msg: str, given: str, field: str = "n") -> dict[str, Any]:
    item = {"type": kind, "loc": f"body.{field}", "msg": msg, "input": given}
    message = f"1 validation error:\n  {item!r}"
    return {
        "error": {"message": message, "type": "Bad Request", "param": f"body.{field}", "code": 400}
    }


@pytest.mark.parametrize(
    ("n", "choices"),
    [("2", 2), (" 2 ", 2), ("+2", 2), ("2.0", 2), (2.0, 2), (True, 1), ("3.00", 3)],
)
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/completions"])
def test_vllm_serves_n_it_reads_as_an_integer(
    vllm: SimThread, path: str, n: Any, choices: int
) -> None:
    body = (CHAT if "chat" in path else COMPLETIONS) | {"n": n, "temperature": 1}
    reply = HTTP.post(vllm.url + path, json=body)
    assert (reply.status_code, len(reply.json()["choices"])) == (200, choices)


@pytest.mark.parametrize(
    ("n", "kind", "msg", "given"),
    [
        (2.5, "int_from_float", FRACTION, "2.5"),
        (2.000000001, "int_from_float", FRACTION, "2.000000001"),
        ("abc", "int_parsing", UNPARSED, "abc"),
        ("2.5", "int_parsing", UNPARSED, "2.5"),
        (1e20, "int_parsing_size", TOO_BIG, "1e+20"),
        ([], "int_type", "Input should be a valid integer", "<list of 0 items>"),
    ],
)
def test_vllm_refuses_what_it_cannot_read_in_pydantics_words(
    vllm: SimThread, n: Any, kind: str, msg: str, given: str
) -> None:
    reply = HTTP.post(vllm.url + "/v1/chat/completions", json=CHAT | {"n": n})
    assert (reply.status_code, reply.json()) == (400, refusal(kind, msg, given))


@pytest.mark.parametrize("n", [0, -1, False])
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/completions"])
def test_vllm_refuses_n_below_one_without_a_parameter(vllm: SimThread, path: str, n: Any) -> None:
    body = (CHAT if "chat" in path else COMPLETIONS) | {"n": n}
    reply = HTTP.post(vllm.url + path, json=body)
    message = f"n must be at least 1, got {int(n)}."
    error = {"message": message, "type": "BadRequestError", "param": None, "code": 400}
    assert (reply.status_code, reply.json()) == (400, {"error": error})


def test_vllm_refuses_a_lax_n_at_temperature_0(vllm: SimThread) -> None:
    reply = HTTP.post(vllm.url + "/v1/chat/completions", json=CHAT | {"n": "2", "temperature": 0})
    message = "n must be 1 when using greedy sampling, got 2."
    assert (reply.status_code, reply.json()["error"]["message"]) == (400, message)


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/chat/completions", CHAT), ("/v1/completions", COMPLETIONS), ("/v1/messages", MESSAGES)],
)
@pytest.mark.parametrize("limit", ["2", 2.0, True])
def test_vllm_serves_max_tokens_it_reads_as_an_integer(
    vllm: SimThread, path: str, body: dict[str, Any], limit: Any
) -> None:
    assert HTTP.post(vllm.url + path, json=body | {"max_tokens": limit}).status_code == 200


@pytest.mark.parametrize(
    ("profile", "path", "body"),
    [
        ("cloud", "/v1/chat/completions", CHAT | {"n": "2"}),
        ("cloud", "/v1/chat/completions", CHAT | {"max_tokens": 2.0}),
        ("anthropic", "/v1/messages", MESSAGES | {"max_tokens": "2"}),
    ],
)
def test_openai_and_anthropic_take_integers_alone(
    start_sim: Callable[..., SimThread], profile: str, path: str, body: dict[str, Any]
) -> None:
    sim = start_sim(profile=profile)
    assert HTTP.post(sim.url + path, json=body).status_code == 400


@pytest.mark.parametrize("stream", [False, True])
def test_vllm_refuses_an_empty_stop_sequence_and_anthropic_drops_it(
    start_sim: Callable[..., SimThread], vllm: SimThread, stream: bool
) -> None:
    """vLLM's sampling parameters refuse "" as they do chat's `stop`, in its Anthropic
    envelope; the simulator dropped it and answered 200 (found in review)."""
    body = MESSAGES | {"stop_sequences": ["", "zzz"], "stream": stream}
    reply = HTTP.post(vllm.url + "/v1/messages", json=body)
    error = {"type": "BadRequestError", "message": "stop cannot contain an empty string."}
    assert (reply.status_code, reply.json()) == (400, {"type": "error", "error": error})
    anthropic = start_sim(profile="anthropic")
    assert HTTP.post(anthropic.url + "/v1/messages", json=body).status_code == 200
