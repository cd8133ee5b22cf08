"""vLLM's own fields a client sends (`top_k`, `min_p`, `chat_template_kwargs`, ...) reach
vLLM, and no other backend unless its `extra_body` names them (`router.backends.vllm_own`).

The router passed them to every backend. OpenAI refuses an argument it does not know with a
400 ("Unrecognized request argument supplied: top_k") and no fallback follows a 400, so a
request the router classified for the cloud, or sent there after local failed, failed for
the router's choice; the simulator's cloud profile took any argument, and demo mode hid it.
Real sockets: the official SDK through the router to the simulators, each of which keeps the
last body it was sent (`keep_requests`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.backends.vllm_own import VLLM_OWN
from router.config import Backend
from router.record import Api
from tests.agent_apis.agent_stack import answered, last_request, openai_client, stack
from tests.harness import Running

ASK: Any = [{"role": "user", "content": "Write a haiku about the sea"}]
# What a client tuned for a local Qwen sends beside its messages
EXTRAS: dict[str, Any] = {
    "top_k": 20,
    "min_p": 0.0,
    "repetition_penalty": 1.05,
    "chat_template_kwargs": {"enable_thinking": False},
    "skip_special_tokens": False,
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("first", ["cloud", "local"])
def test_vllms_fields_reach_vllm_alone(
    servers: dict[str, Running], tmp_path: Path, first: str, stream: bool
) -> None:
    """Whole and streamed: served by the cloud (which answered 400 before) without them,
    and by vLLM with them; the OpenAI fields go to both."""
    with stack(servers, tmp_path, [first]) as proxy:
        kwargs: dict[str, Any] = {
            "model": "auto",
            "messages": ASK,
            "max_tokens": 32,
            "temperature": 0.7,
            "extra_body": EXTRAS,
        }
        headers, content = answered(openai_client(proxy), kwargs, stream=stream)
        assert stream or content
    assert headers["x-smf-backend"] == first
    body = last_request(servers[first])
    assert (body["messages"], body["temperature"]) == (ASK, 0.7)
    if first == "local":
        assert {k: body[k] for k in EXTRAS} == EXTRAS
    else:
        assert not set(EXTRAS) & set(body), body


def test_a_responses_request_with_them_is_served_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """A Responses client's `top_k`, translated for the chat cloud: served, not sent (the
    translation builds a new body, which never carried it: a guard)."""
    with stack(servers, tmp_path, ["cloud"]) as proxy:
        raw = openai_client(proxy).responses.with_raw_response.create(
            model="auto", input="Write a haiku", extra_body={"top_k": 20, "min_p": 0.1}
        )
        assert raw.parse().status == "completed"
    assert raw.headers["x-smf-backend"] == "cloud"
    assert not {"top_k", "min_p"} & set(last_request(servers["cloud"]))


def test_a_field_outside_vllms_still_reaches_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """Only vLLM's own go: any other unknown field passes through, and OpenAI's 400 for it
    reaches the client in OpenAI's words, as the backend's."""
    with stack(servers, tmp_path, ["cloud"]) as proxy:
        client = openai_client(proxy)
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(
                model="auto", messages=ASK, max_tokens=16, extra_body={"num_keep": 5}
            )
    message = "Unrecognized request argument supplied: num_keep"  # open-webui#14520's
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    assert refused.value.response.json() == {"error": error}


def _backend(**settings: Any) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(Backend(name="b", model="m", **settings))


CLOUD = {"tier": "cloud", "base_url": "https://api.openai.com/v1"}
BASE = {"model": "auto", "prompt": "hi", "temperature": 0.5}


@pytest.mark.parametrize("api", ["chat", "completions", "responses"])
def test_every_body_a_non_vllm_backend_is_sent_goes_without_them(api: Api) -> None:
    """What a backend adapter makes of a body (live attempts, fallbacks and shadow replays
    all go through it): every one of vLLM's own names goes, for a cloud and for OpenAI
    itself on the local tier; vLLM keeps them all."""
    own = dict.fromkeys(sorted(VLLM_OWN), 1)
    for settings in (CLOUD, {"tier": "local", "base_url": "https://api.openai.com/v1"}):
        assert _backend(**settings).body_for(api, {**BASE, **own}) == {**BASE, "model": "m"}
    vllm = _backend(tier="local", base_url="http://127.0.0.1:8888/v1")
    assert vllm.body_for(api, {**BASE, **own}) == {**BASE, **own, "model": "m"}


def test_echo_is_openais_on_completions() -> None:
    backend = _backend(**CLOUD)
    assert backend.body_for("completions", {**BASE, "echo": True})["echo"] is True
    assert "echo" not in backend.body_for("chat", {**BASE, "echo": True})


def test_a_backend_whose_extra_body_names_one_is_sent_it() -> None:
    """An operator's cloud that serves `top_k` says so in `extra_body`; the client's value
    wins over its default, as for any extra."""
    backend = _backend(**CLOUD, extra_body={"top_k": 40})
    sent_body = backend.body_for("chat", {**BASE, "top_k": 5, "min_p": 0.1})
    assert (sent_body["top_k"], "min_p" in sent_body) == (5, False)


def test_messages_keeps_anthropics_top_k() -> None:
    """On a Messages backend `top_k` is Anthropic's own field."""
    body = {"model": "auto", "max_tokens": 8, "messages": ASK, "top_k": 5}
    assert _backend(**CLOUD).body_for("messages", body)["top_k"] == 5
