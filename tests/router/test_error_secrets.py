"""A backend whose error repeats what the router sent it (its key, a header, the URL's query)
never gives those to a client: each error reaches the client cleaned, and still says what
went wrong.

A reviewer's gateway in front of a provider answered errors naming the credential it got
(as a Python gateway returning an HTTP error's text with Gemini's `?key=` URL does,
BerriAI/litellm#24902): 5xx, 429, a 400 passed through, an error event mid-stream and
litellm's exceptions all went out unchanged, and any client with a router key read the
operator's cloud key. Real sockets: the router, simulators with the `echo_credentials`
faults, litellm speaking OpenAI's chat to one of them, the official SDKs.

A re-review found more: the key as an in-band error's `type` or `code`, a key litellm read
from a variable not named `<PROVIDER>_API_KEY`, a header configured with its scheme
(`Bearer X`) and X repeated bare, a key cut through at 500 characters (its head shown), and
every header value masked, `X-Title: chat` the "chat" of every path. A secret counts as
shown here when its first `HEAD` characters are.
"""

from __future__ import annotations

import asyncio
import json
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
from tests.harness import (
    INTENTS,
    Running,
    RunningRouter,
    litellm_backend,
    openai_via_litellm,
    router,
    simulator,
)

ENV = "SMF_TEST_ERROR_SECRETS_KEY"
# Shapes no pattern takes for a credential: only the exact values hide them.
KEY = "gw-7f3a9c2e1b5d-router-key"
HEADER = "hdr-0c4e8a2f6b1d-token"
QUERY = "qv-5b9d1f3a7c2e"
BEARER = "br-1a2b3c4d5e6f-bearer"  # a header's value after its scheme: `Bearer br-...`
TOGETHER = "tg-4c6e8a0b2d4f-together"  # litellm reads it itself: TOGETHER_API_KEY
SECRETS = (KEY, HEADER, QUERY, BEARER, TOGETHER)
HEAD = 8  # the shortest head of a secret that counts as shown
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
    `gwll` litellm speaking OpenAI's chat to that one. Each knows the same three secrets.
    `gwbearer` that gateway too, its key a header configured with its scheme, beside an
    `X-Title: chat`; `gwtog` litellm's Together AI there, without `api_key_env`: litellm
    reads TOGETHER_API_KEY."""
    with (
        pytest.MonkeyPatch.context() as env,
        simulator(profile="vllm", model="gw-model", accept_any_model=True) as vllm,
        simulator(profile="cloud", model="gwchat-model", accept_any_model=True) as cloud,
    ):
        env.setenv(ENV, KEY)
        env.setenv("TOGETHER_API_KEY", TOGETHER)
        gwll = {**openai_via_litellm("gwll", cloud.url, "gwll-model"), "api_key_env": ENV}
        gwtog = litellm_backend("gwtog", "together_ai/gwtog-model", cloud.url)
        scheme = {"Authorization": f"Bearer {BEARER}", "X-Title": "chat"}
        config = parse(
            {
                "backends": [
                    backend("gw", vllm, ALL_APIS, f"?key={QUERY}"),
                    backend("gwchat", cloud, ["chat"]),
                    {**gwll, "headers": {"x-gateway-token": HEADER}},
                    {
                        **backend("gwbearer", cloud, ["chat"]),
                        "api_key_env": None,
                        "headers": scheme,
                    },
                    {**gwtog, "api_key_env": None},
                ],
                "routes": {intent: ["gw"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("secrets") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield {"gw": vllm, "gwchat": cloud, "gwll": cloud, "router": proxy} | {
                "gwbearer": cloud,
                "gwtog": cloud,
            }


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
    assert not shown(caplog.text)


def shown(text: str) -> list[str]:
    """The secrets `text` shows, whole or their head."""
    return [secret for secret in SECRETS if secret[:HEAD] in text]


def clean(text: str) -> str:
    """`text` when it holds no secret and still says what the upstream said."""
    assert not shown(text), text
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


@pytest.mark.parametrize("tokens", [2, 0], ids=["mid_stream", "before_first_token"])
def test_an_error_event_naming_the_key_as_its_type_and_code_reaches_the_client_without_it(
    proxy: RunningRouter, fault: Any, tokens: int
) -> None:
    """An OpenAI-shaped upstream's own `type` and `code` go to the client (Codex reads
    `context_length_exceeded` there), but only names that hold no secret: this one's type is
    the bare key, its code the gateway header's value. The router's own names go instead."""
    fault("gw", f"echo_credentials_named:{tokens}")
    error = chat(proxy, "gw", stream=True)
    said = [error.message, json.dumps(error.body), str(error.code), str(error.type)]
    if isinstance(error, openai.APIStatusError):
        said.append(error.response.text)
    assert not shown(" ".join(said)), said
    assert (error.type, error.code) == ("upstream_error", "upstream_error")
    assert "the gateway refused the request" in error.message


@pytest.mark.parametrize("model", ["gw", "gwchat"])
def test_a_responses_error_naming_the_key_as_its_code_fails_without_it(
    proxy: RunningRouter, fault: Any, model: str
) -> None:
    """`response.failed` carries the error's code: native on `gw` (an `error` event whose
    `code` is the header's value), translated on `gwchat` (a chat error event's)."""
    fault(model, "echo_credentials_named:2")
    error = responses_stream_error(proxy, model, ASK)
    assert not shown(error.model_dump_json()), error
    assert error.code == "upstream_error"  # the router's own


@pytest.mark.parametrize(
    ("model", "spec"),
    [("gw", "echo_credentials_page:2:500"), ("gwll", "echo_credentials_long:2:500")],
    ids=["text_page", "litellm_message"],
)
def test_a_long_error_is_cut_after_it_is_cleaned(
    proxy: RunningRouter, fault: Any, model: str, spec: str
) -> None:
    """The key repeated past character 500: of a text page (not JSON) the router shows 500
    characters, and of litellm's message its first line up to 500 characters. Cut before
    cleaning, the key the cut went through kept its head (13 characters of it)."""
    fault(model, spec)
    error = chat(proxy, model)
    assert isinstance(error, openai.APIStatusError) and error.status_code == 502
    clean(error.response.text)
    assert error.message.rstrip().endswith("***")


@pytest.mark.parametrize("model", ["gwbearer", "gwtog"])
def test_a_key_sent_otherwise_than_by_api_key_env_is_not_repeated(
    proxy: RunningRouter, fault: Any, model: str
) -> None:
    """`gwbearer`'s key is a configured `Authorization: Bearer ...`, which the gateway
    repeats bare; `gwtog`'s is TOGETHER_API_KEY, which litellm reads first for Together AI
    (not TOGETHER_AI_API_KEY, the `<PROVIDER>_API_KEY` guess)."""
    fault(model, "echo_credentials:2:500")
    error = chat(proxy, model)
    assert isinstance(error, openai.APIStatusError) and error.status_code == 502
    clean(error.response.text)


def test_a_header_that_is_no_credential_is_not_masked_in_the_error(
    proxy: RunningRouter, fault: Any
) -> None:
    """`X-Title: chat` (OpenRouter's app name) is sent, but no secret: masked as one, the
    error said "POST /v1/***/completions"."""
    fault("gwbearer", "echo_credentials:2:500")
    message = clean(chat(proxy, "gwbearer").message)
    assert "POST /v1/chat/completions" in message
