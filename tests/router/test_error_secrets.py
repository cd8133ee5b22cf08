"""A backend whose error repeats what the router sent it (its key, a header, the URL's query)
never gives those to a client: each error reaches the client cleaned, and still says what
went wrong.

A reviewer's gateway in front of a provider answered errors naming the credential it got
(as a Python gateway returning an HTTP error's text with Gemini's `?key=` URL does,
BerriAI/litellm#24902): 5xx, 429, a 400 passed through, an error event mid-stream and
litellm's exceptions all went out unchanged, and any client with a router key read the
operator's cloud key. Real sockets: the router, simulators with the `echo_credentials`
fault, litellm speaking OpenAI's chat to one of them, the official SDKs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import openai
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.canary import ask_backend
from router.config import parse
from tests.agent_apis.agent_stack import (
    anthropic_client,
    messages_stream_error,
    openai_client,
    responses_stream_error,
)
from tests.harness import INTENTS, Running, RunningRouter, openai_via_litellm, router, simulator

ENV = "SMF_TEST_ERROR_SECRETS_KEY"
# Shapes no pattern takes for a credential: only the exact values hide them.
KEY = "gw-7f3a9c2e1b5d-router-key"
HEADER = "hdr-0c4e8a2f6b1d-token"
QUERY = "qv-5b9d1f3a7c2e"
SECRETS = (KEY, HEADER, QUERY)
SAID = "the gateway could not serve POST /v1/"  # the rest of the upstream's message
ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]
ALL_APIS = ["chat", "completions", "responses", "messages"]


def backend(name: str, server: Running, apis: list[str], query: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "tier": "cloud",
        "base_url": server.url + query,
        "model": f"{name}-model",
        "apis": apis,
        "api_key_env": ENV,
        "headers": {"x-gateway-token": HEADER},
        "retry_after_max_s": 0,
    }


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Running]]:
    """`gw` a vLLM speaking every API itself, its URL holding a `?key=`; `gwchat` an
    OpenAI-like gateway that speaks chat only (Messages and Responses reach it translated);
    `gwll` litellm speaking OpenAI's chat to that one. Each knows the same three secrets."""
    with (
        pytest.MonkeyPatch.context() as env,
        simulator(profile="vllm", model="gw-model", accept_any_model=True) as vllm,
        simulator(profile="cloud", model="gwchat-model", accept_any_model=True) as cloud,
    ):
        env.setenv(ENV, KEY)
        gwll = {**openai_via_litellm("gwll", cloud.url, "gwll-model"), "api_key_env": ENV}
        config = parse(
            {
                "backends": [
                    backend("gw", vllm, ALL_APIS, f"?key={QUERY}"),
                    backend("gwchat", cloud, ["chat"]),
                    {**gwll, "headers": {"x-gateway-token": HEADER}},
                ],
                "routes": {intent: ["gw"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("secrets") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield {"gw": vllm, "gwchat": cloud, "gwll": cloud, "router": proxy}


@pytest.fixture
def proxy(servers: dict[str, Any]) -> RunningRouter:
    router_: RunningRouter = servers["router"]
    return router_


@pytest.fixture
def fault(
    servers: dict[str, Running], caplog: pytest.LogCaptureFixture
) -> Iterator[Callable[[str, str], None]]:
    """`fault(backend, spec)` sets the fault of a backend's simulator for the test; after it,
    nothing the router logged holds a secret either."""
    caplog.set_level(logging.DEBUG)
    touched: list[Running] = []

    def set_fault(name: str, spec: str) -> None:
        servers[name].control("faults", {"fault": spec})
        touched.append(servers[name])

    yield set_fault
    for server in touched:
        server.control("faults", {"fault": None})
    assert not [secret for secret in SECRETS if secret in caplog.text]


def clean(text: str) -> str:
    """`text` when it holds no secret and still says what the upstream said."""
    assert not [secret for secret in SECRETS if secret in text], text
    assert SAID in text and "***" in text, text
    return text


def chat(proxy: Running, model: str, stream: bool = False) -> openai.APIError:
    client = openai_client(proxy)
    with pytest.raises(openai.APIError) as raised:
        reply: Any = client.chat.completions.create(
            model=model,
            messages=ASK,  # type: ignore[arg-type]
            max_tokens=40,
            stream=stream,
        )
        for _ in reply if stream else ():
            pass
    return raised.value


@pytest.mark.parametrize("model", ["gw", "gwchat", "gwll"])
@pytest.mark.parametrize(("upstream", "status"), [(500, 502), (429, 429), (400, 400)])
def test_a_chat_error_repeating_the_key_reaches_the_client_without_it(
    proxy: RunningRouter, fault: Any, model: str, upstream: int, status: int
) -> None:
    """A 5xx, a 429 and a 400 passed through, from an HTTP backend and through litellm."""
    fault(model, f"echo_credentials:2:{upstream}")
    error = chat(proxy, model)
    assert isinstance(error, openai.APIStatusError) and error.status_code == status
    clean(error.message)
    clean(error.response.text)  # the whole body: a 400's is the upstream's own


@pytest.mark.parametrize("model", ["gw", "gwll"])
@pytest.mark.parametrize("tokens", [2, 0], ids=["mid_stream", "before_first_token"])
def test_a_chat_stream_error_event_repeating_the_key_reaches_the_client_without_it(
    proxy: RunningRouter, fault: Any, model: str, tokens: int
) -> None:
    """After the first token the relay sends it in-band; before it, the attempt fails and
    the client gets the error as an HTTP one."""
    fault(model, f"echo_credentials:{tokens}")
    error = chat(proxy, model, stream=True)
    clean(error.message)
    if isinstance(error, openai.APIStatusError):
        clean(error.response.text)


@pytest.mark.parametrize("model", ["gw", "gwchat"])
def test_a_responses_error_repeating_the_key_reaches_codex_without_it(
    proxy: RunningRouter, fault: Any, model: str
) -> None:
    """Whole (an HTTP 500, then a 502) and streamed (`response.failed`), native on `gw`,
    translated to chat on `gwchat`."""
    fault(model, "echo_credentials:2:500")
    with pytest.raises(openai.APIStatusError) as raised:
        openai_client(proxy).responses.create(model=model, input=ASK)  # type: ignore[arg-type]
    assert raised.value.status_code == 502
    clean(raised.value.response.text)
    clean(responses_stream_error(proxy, model, ASK).message)


@pytest.mark.parametrize("model", ["gw", "gwchat"])
def test_a_messages_error_repeating_the_key_reaches_claude_code_without_it(
    proxy: RunningRouter, fault: Any, model: str
) -> None:
    """Through the anthropic SDK: whole, and the `event: error` that ends a stream."""
    fault(model, "echo_credentials:2:500")
    with pytest.raises(anthropic.APIStatusError) as raised:
        anthropic_client(proxy).messages.create(model=model, max_tokens=40, messages=ASK)  # type: ignore[arg-type]
    assert raised.value.status_code == 502
    clean(raised.value.response.text)
    clean(messages_stream_error(proxy, model, ASK)["message"])


def test_the_canarys_error_details_hold_no_key(servers: dict[str, Running], fault: Any) -> None:
    """The canary asks the backend adapter itself; its details (`/v1/router/status`) repeat
    the error's message."""
    fault("gw", "echo_credentials:2:500")
    proxy: RunningRouter = servers["router"]  # type: ignore[assignment]
    settings = proxy.components.config.backend("gw")
    adapter = OpenAICompatibleBackend(settings)

    async def ask() -> str:
        try:
            await ask_backend(adapter, {"messages": ASK, "max_tokens": 5})
        except Exception as exc:
            return str(exc)
        finally:
            await adapter.aclose()
        return ""

    clean(asyncio.run(ask()))
