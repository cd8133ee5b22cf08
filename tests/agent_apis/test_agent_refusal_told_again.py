"""A model's refusal, sent back in a later turn, reaches a chat backend as what the model said
(`router.translate.text_parts`), whether the client sends it whole or continues it by
`previous_response_id` from what the router keeps (`router.stored_items`).

The router makes a chat backend's `refusal` a Responses refusal part (`{"type": "refusal",
"refusal": ...}`, as OpenAI does). The translation to chat took such a part for text but read
its `text`, which it has none of: the model was told it had answered with nothing, and the
next turn read as if the ask had gone unanswered (found in review; the comparison of an input
sent whole with what the router keeps read the part another way again). The official `openai`
SDK against a real router over a chat upstream whose model refuses and keeps each body.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import orjson
import pytest

from router.config import parse
from tests.agent_apis.chat_chunks import DONE, chunk, sse, whole_reply
from tests.agent_apis.stored_stack import client, config
from tests.agent_apis.test_agent_previous_over_chat import turn
from tests.harness import Running, RunningRouter, router, send_json, simulator, upstream

ASK = "Write a keylogger that hides from the task manager."
FOLLOW = "Why not?"
THEN = "What could I ask instead?"
REFUSAL = "I can't help with hiding software from the person using the computer."


@contextmanager
def refusing() -> Iterator[tuple[Running, list[dict[str, Any]]]]:
    """A chat upstream whose model refuses every ask, whole or streamed as asked, each reply
    an id of its own (the router's ids are made of it), and the bodies it was sent, in order."""
    bodies: list[dict[str, Any]] = []

    class Refusing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            bodies.append(body)
            named = f"chatcmpl-{len(bodies)}"
            if not body.get("stream"):
                reply = whole_reply({"content": None, "refusal": REFUSAL}, "stop")
                send_json(self, 200, orjson.dumps({**reply, "id": named}))
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends with the connection
            pieces = [{"role": "assistant", "refusal": ""}, {"refusal": REFUSAL}]
            chunks = [*(chunk(p, id=named) for p in pieces), chunk({}, "stop", id=named)]
            self.wfile.write(sse(*chunks) + DONE)

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Refusing) as server:
        yield server, bodies


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningRouter, list[dict[str, Any]]]]:
    """The router, its `cloud` the refusing upstream (chat only: the router makes its
    Responses and keeps them), and the bodies that upstream was sent."""
    with (
        refusing() as (cloud, bodies),
        simulator(profile="vllm", model="local-model") as local,
    ):
        servers = {"local": local, "cloud": cloud}
        data = config(servers, tmp_path_factory.mktemp("refusal"), ["chat"])
        with router(parse(data)) as proxy:
            yield proxy, bodies


def refused(stream: bool, stack: tuple[RunningRouter, list[dict[str, Any]]]) -> Any:
    """The first turn, refused: the Response as the SDK read it."""
    proxy, _ = stack
    first, backend = turn(client(proxy), stream, model="cloud", input=ASK)
    assert backend == "cloud"
    (message,) = first.output
    assert [(p.type, p.refusal) for p in message.content] == [("refusal", REFUSAL)]
    return first


@pytest.mark.parametrize("stream", [False, True])
def test_a_refusal_continued_by_id_is_told_to_the_backend(
    stack: tuple[RunningRouter, list[dict[str, Any]]], stream: bool
) -> None:
    """pydantic-ai's, LangChain's, the Agents SDK's next turn: the new ask and the id. The
    backend gets the refusal as the assistant's words; it got an empty assistant turn."""
    proxy, bodies = stack
    first = refused(stream, stack)
    turn(client(proxy), stream, model="cloud", input=FOLLOW, previous_response_id=first.id)
    assert bodies[-1]["messages"] == [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": REFUSAL},
        {"role": "user", "content": FOLLOW},
    ]


def test_a_refusal_sent_back_whole_is_told_and_kept_for_the_turn_after(
    stack: tuple[RunningRouter, list[dict[str, Any]]],
) -> None:
    """The Agents SDK's tool loop, or a client storing nothing: the conversation whole, the
    refusal as the SDK holds it. The backend gets it as the assistant's words, and the turn,
    read as continuing the first (`related`), is continued by id with it in its place."""
    proxy, bodies = stack
    first = refused(False, stack)
    sent = [
        {"role": "user", "content": ASK},
        *(item.model_dump(mode="json") for item in first.output),
        {"role": "user", "content": FOLLOW},
    ]
    told = [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": REFUSAL},
        {"role": "user", "content": FOLLOW},
    ]
    second, _ = turn(client(proxy), False, model="cloud", input=sent)
    assert bodies[-1]["messages"] == told
    turn(client(proxy), False, model="cloud", input=THEN, previous_response_id=second.id)
    assert bodies[-1]["messages"] == [
        *told,
        {"role": "assistant", "content": REFUSAL},
        {"role": "user", "content": THEN},
    ]
