"""A Responses turn sent the moment the answer it continues ended reaches what that answer
left: its items (`item_reference`) and the backend that stored it (`previous_response_id`).

The Vercel AI SDK's tool loop sends its next step as soon as it reads `response.completed`,
as an `openai` SDK loop does. The router kept the answer only as it finished the record,
after the bytes that end it were handed to the server (in the relay's `finally`, after
`finish_whole` for a whole reply): a next turn that came first was a 400 (an item this router
does not hold) or went to a backend that never stored the answer, and its 400 (found in
review). Here the router is real and its backends are simulators; an ASGI app around the
router (`HeldEnd`) hands on the bytes ending a held answer, then has that send wait until the
next turn was answered, as an ASGI server's send may wait for a slow client. No simulator
fault opens that window: the relay reads nothing after the terminal event (a backend holding
its stream open after it holds nothing up), and what runs between it and the record's finish
lets no other request in under uvicorn today; the window is the send's, so it is held there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from router.config import parse
from tests.harness import Running, RunningRouter, router, simulator

ASK = "Write a Python function that reverses a list."
FOLLOW = "Now add type hints to it."
CODE = "Write a Python function that reverses a linked list and add unit tests for it."
FOLLOW_MATH = "Now compute the derivative of x^3 + 2x and prove the product rule."
TIMEOUTS = {"connect_s": 2, "first_token_s": 5, "idle_s": 5, "total_s": 20}
HOLD = {"x-test-hold": "1"}
HANG_GUARD_S = 60.0  # a turn that never comes: the held answer ends, and the test says so


class HeldEnd:
    """The router's app, with each held request's (`HOLD`) end held: the body message that
    ends its answer (`response.completed`, or a whole reply) goes on to uvicorn, then its
    send waits until another request's answer began. `overlaps` counts the answers that
    began while one was held, each before it went out."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.began = asyncio.Event()
        self.holding = False
        self.overlaps = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held = (b"x-test-hold", b"1") in scope["headers"]

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start" and not held and self.holding:
                self.overlaps += 1
                self.began.set()
            await send(message)
            if held and _ends(message):
                self.began.clear()
                self.holding = True
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.began.wait(), HANG_GUARD_S)
                self.holding = False

        await self.app(scope, receive, sending)


def _ends(message: Any) -> bool:
    """The body message carrying the end of an answer: a stream's terminal event, or a
    whole reply (its one body message)."""
    body = message.get("body", b"")
    more = message.get("more_body", False)
    return (
        message["type"] == "http.response.body"
        and bool(body)
        and (b"response.completed" in body or not more)
    )


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with (  # seeds of their own: one seed gives them the same ids, in the same order
        simulator(profile="cloud", model="chat-model", seed=21) as chat,
        simulator(profile="vllm", model="local-model", seed=22) as local,
        simulator(profile="cloud", model="cloud-model", seed=23) as cloud,
    ):
        yield {"chat": chat, "local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def held(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, HeldEnd]]:
    """`chat` speaks chat only (the router makes its Responses answers); `local` and
    `cloud` speak Responses themselves, coding local first, the rest cloud first."""
    apis = {"chat": ["chat"], "local": ["chat", "responses"], "cloud": ["chat", "responses"]}
    backends = [
        {
            "name": name,
            "tier": "local" if name == "local" else "cloud",
            "base_url": server.url,
            "model": f"{name}-model",
            "apis": apis[name],
            "timeouts": TIMEOUTS,
        }
        for name, server in servers.items()
    ]
    local_first, cloud_first = ["local", "cloud", "chat"], ["cloud", "local", "chat"]
    routes = {
        intent: local_first if intent in ("coding", "tool_calling", "instruction") else cloud_first
        for intent in ("coding", "tool_calling", "instruction", "math", "reasoning", "prose")
    }
    routes["writing"] = cloud_first
    config = parse(
        {
            "backends": backends,
            "routes": routes,
            "ledger": {"path": str(tmp_path_factory.mktemp("at_once") / "ledger")},
            "resilience": {"enabled": False},
        }
    )
    holder: list[HeldEnd] = []

    def wrap(app: Any) -> HeldEnd:
        holder.append(HeldEnd(app))
        return holder[0]

    with router(config, wrap=wrap) as running:
        yield running, holder[0]


def client(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "input_text", "text": text}]}


def answered(ask: dict[str, Any], held: tuple[RunningRouter, HeldEnd]) -> tuple[int, str]:
    """The status of a turn sent while the answer before it is held at its end, and the
    backend that served it (or the refusal's message)."""
    try:
        reply = client(held[0]).responses.with_raw_response.create(**ask)
    except openai.APIStatusError as error:
        return error.status_code, error.message
    return reply.status_code, reply.headers["x-smf-backend"]


def at_its_end(
    held: tuple[RunningRouter, HeldEnd], stream: bool, then: Any, **ask: Any
) -> tuple[Any, tuple[int, str]]:
    """Turn 1 (held at its end, `ask`), and `then(response)`'s next turn sent as soon as
    the SDK has the response: at `response.completed`, or the whole reply."""
    sdk = client(held[0])
    if not stream:
        response = sdk.responses.create(**ask, extra_headers=HOLD)
        return response, answered(then(response), held)
    result: tuple[Any, tuple[int, str]] | None = None
    for event in sdk.responses.create(**ask, stream=True, extra_headers=HOLD):
        if event.type == "response.completed":  # its stream is still open: held
            result = event.response, answered(then(event.response), held)
    assert result is not None
    return result


@pytest.mark.parametrize("stream", [True, False])
def test_an_item_reference_sent_at_the_end_of_the_answer_it_names(
    held: tuple[RunningRouter, HeldEnd], servers: dict[str, Running], stream: bool
) -> None:
    """The AI SDK's next step: the answer over chat by reference, sent at its end."""

    def next_turn(response: Any) -> dict[str, Any]:
        reference = {"type": "item_reference", "id": response.output[0].id}
        return {"model": "chat", "input": [user(ASK), reference, user(FOLLOW)]}

    overlaps = held[1].overlaps
    first, second = at_its_end(held, stream, next_turn, model="chat", input=[user(ASK)])
    assert held[1].overlaps == overlaps + 1  # answered while the end was held
    assert second == (200, "chat")  # was 400: "an item this router does not hold"
    text = first.output[0].content[0].text
    assert servers["chat"].stats()["last_request"]["messages"] == [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": text},
        {"role": "user", "content": FOLLOW},
    ]


@pytest.mark.parametrize("stream", [True, False])
def test_a_previous_response_id_sent_at_the_end_of_the_answer_it_continues(
    held: tuple[RunningRouter, HeldEnd], stream: bool
) -> None:
    """A math turn continuing a coding answer stored on `local` goes there, not to the
    cloud its route tries first, which never stored it."""

    def next_turn(response: Any) -> dict[str, Any]:
        return {"model": "auto", "input": FOLLOW_MATH, "previous_response_id": response.id}

    overlaps = held[1].overlaps
    first, second = at_its_end(held, stream, next_turn, model="auto", input=CODE)
    assert held[1].overlaps == overlaps + 1
    assert second == (200, "local")  # was the cloud's 400: no such response
    assert first.id.startswith("resp")
