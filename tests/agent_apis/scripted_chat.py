"""The router over a chat upstream that answers a scripted body, and the text of its answer
through the chat, Messages or Responses API, streamed or whole: for the tests of what the
translated paths make of a backend's odd replies. Also an upstream whose model refuses."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import orjson

from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.chat_chunks import DONE, chunk, sse, whole_reply
from tests.harness import (
    Collect,
    RunningRouter,
    config_for,
    router,
    scripted_stream,
    send_json,
    simulator,
)

ASK = [{"role": "user", "content": "hi"}]


@contextmanager
def routed(
    tmp: Path, body: bytes, whole: bool = False, fallback: bool = False
) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over `local`, a chat upstream answering `body` (and, with `fallback`, a
    cloud simulator after it), with a sink for the request's record."""
    kind = "application/json" if whole else "text/event-stream"
    with (
        scripted_stream(body, kind) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        backends = {"local": local, "cloud": cloud} if fallback else {"local": local}
        with router(config_for(backends, tmp)) as proxy:
            records = Collect()
            proxy.components.gateway.sinks.append(records)
            yield proxy, records


def answered(proxy: RunningRouter, api: str, stream: bool) -> str:
    """The text of a chat, Messages or Responses answer, streamed or whole."""
    if api == "chat":
        chat = openai_client(proxy).chat.completions
        if stream:
            chunks = chat.create(model="coding", messages=ASK, stream=True)  # type: ignore[arg-type]
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        return chat.create(model="coding", messages=ASK).choices[0].message.content or ""  # type: ignore[arg-type]
    if api == "messages":
        client = anthropic_client(proxy)
        message: Any
        if stream:
            with client.messages.stream(model="coding", max_tokens=50, messages=ASK) as s:  # type: ignore[arg-type]
                message = s.get_final_message()
        else:
            message = client.messages.create(model="coding", max_tokens=50, messages=ASK)  # type: ignore[arg-type]
        return "".join(b.text for b in message.content if b.type == "text")
    responses = openai_client(proxy).responses
    if stream:
        events: list[Any] = list(responses.create(model="coding", input=ASK, stream=True))  # type: ignore[arg-type]
        assert events[-1].type == "response.completed"
        return str(events[-1].response.output_text)
    return responses.create(model="coding", input=ASK).output_text  # type: ignore[arg-type]


def served_by(record: Any) -> list[tuple[str, str | None]]:
    return [(a.backend, a.error_kind) for a in record.attempts]


REFUSAL = "I'm sorry, but I can't help with that request because it asks for something unsafe. "
REFUSAL *= 3


class Refusing(BaseHTTPRequestHandler):
    """A chat upstream that refuses every request, streamed or whole as asked, and sends no
    usage (as a server that ignores `stream_options`): the router must estimate it."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if not body.get("stream"):
            message = {"content": None, "refusal": REFUSAL}
            send_json(self, 200, orjson.dumps(whole_reply(message, "stop")))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()  # HTTP/1.0: the body ends with the connection
        half = len(REFUSAL) // 2
        pieces = [{"role": "assistant", "refusal": ""}, {"refusal": REFUSAL[:half]}]
        pieces.append({"refusal": REFUSAL[half:]})
        self.wfile.write(sse(*(chunk(p) for p in pieces), chunk({}, "stop")) + DONE)

    def log_message(self, *args: object) -> None:
        pass
